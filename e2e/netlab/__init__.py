# SPDX-License-Identifier: Apache-2.0
"""Ingot's network-namespace lab: namespaces on a bridge (topology), FRR per namespace (frr),
frr-reload.py with a bounded re-run loop (reload), parsed FRR JSON (bgp), route-gap watching
(watch), manifests and `ingotctl render` (manifests, ingotctl), and a BGP lab of ToRs and nodes
(bgplab), and the cluster lab behind `e2e/lab up` (cluster, mainjob, cli; frr-k8s mode runs ingot-frr). Every
run is recorded in a ledger (ledger) so that teardown, or `e2e/lab cleanup`
after a killed run, removes exactly what it created. See README.md."""
