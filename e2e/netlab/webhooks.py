# SPDX-License-Identifier: Apache-2.0
"""The controller's webhooks in the cluster lab, registered as the chart registers them: the
Service `metallb-webhook-service` (its EndpointSlice pointing at the controller on the api host,
port 9443) and the chart's ValidatingWebhookConfiguration, read from charts/manifests. The
controller puts the CA bundle into the configuration and into the BGPPeer CRD's conversion
webhook; the lab waits for both before it is handed to a test."""

from __future__ import annotations

from pathlib import Path

import yaml

from .manifests import METALLB_NS

REPO = Path(__file__).resolve().parents[2]
SERVICE = "metallb-webhook-service"
CONFIGURATION = "metallb-webhook-configuration"
PORT = 9443  # the controller's default --webhook-port, MetalLB's fixed one
CHART_MANIFESTS = REPO / "charts" / "manifests" / "ingot-frr-k8s.yaml"


def webhook_objects(address: str, port: int = PORT) -> list:
    """The Service, its EndpointSlice (address:port) and the chart's webhook configuration."""
    docs = yaml.safe_load_all(CHART_MANIFESTS.read_text())
    configuration = next(d for d in docs if d and d["kind"] == "ValidatingWebhookConfiguration")
    service = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": SERVICE, "namespace": METALLB_NS},
               "spec": {"ports": [{"name": "webhook", "port": 443, "targetPort": port}]}}
    endpoints = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                 "addressType": "IPv4",
                 "metadata": {"name": f"{SERVICE}-controller", "namespace": METALLB_NS,
                              "labels": {"kubernetes.io/service-name": SERVICE}},
                 "ports": [{"name": "webhook", "port": port, "protocol": "TCP"}],
                 "endpoints": [{"addresses": [address], "conditions": {"ready": True}}]}
    return [service, endpoints, configuration]


def ca_bundles_published(client) -> bool:
    """True once the controller's CA bundle is in every webhook of the configuration and in the
    BGPPeer CRD's conversion webhook."""
    configuration = client.get("ValidatingWebhookConfiguration", CONFIGURATION) or {}
    hooks = configuration.get("webhooks") or []
    crd = client.get("CustomResourceDefinition", "bgppeers.metallb.io") or {}
    conversion = crd.get("spec", {}).get("conversion", {}).get("webhook", {})
    return bool(hooks) and all(h.get("clientConfig", {}).get("caBundle") for h in hooks) and \
        bool(conversion.get("clientConfig", {}).get("caBundle"))
