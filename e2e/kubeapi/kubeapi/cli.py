# SPDX-License-Identifier: Apache-2.0
"""The command line of server.py."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import threading

from .apiserver import KubeApiServer
from .certs import write_file_atomically
from .faults import ALL_VERBS, FaultPlan


def _ip_literal(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address literal") from None


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Ingot's test Kubernetes API server (test infrastructure only).")
    add = parser.add_argument
    add("--address", default="127.0.0.1", type=_ip_literal,
        help="IP address to listen on, also put in the server certificate (default "
             "127.0.0.1); anything but loopback is meant for addresses inside a network "
             "namespace the caller created (e2e/lab)")
    add("--port", type=int, default=0, help="port (default 0: a free port)")
    add("--port-file", help="write the chosen port to this file once serving")
    add("--token", action="append", default=[],
        help="accepted bearer token (repeatable); without any, authentication is off")
    add("--insecure-http", action="store_true", help="serve plain HTTP instead of HTTPS")
    add("--cert-dir", help="where to create (or reuse) ca.crt/ca.key/server.crt/server.key")
    add("--kubeconfig-out", help="write a kubeconfig for this server (first token) here")
    add("--namespace", action="append", default=[],
        help="namespace to create at start besides default, kube-system, metallb-system")
    add("--history", type=int, default=1000,
        help="watch events kept; older resourceVersions get 410 Expired (default 1000)")
    add("--bookmark-interval", type=float, default=60.0,
        help="seconds between BOOKMARK events on watches that allow them (default 60, about "
             "what a real server sends)")
    add("--compaction-window", type=float, default=300.0,
        help="seconds of watch history kept: older resourceVersions get 410 Expired, as after "
             "etcd's compaction (default 300, kube-apiserver's 5 minute interval)")
    add("--close-watches-after", type=float, help="fault: end every watch after SECONDS")
    add("--fail-writes", type=float, default=0.0,
        help="fault: fraction of writes answered 500 InternalError")
    add("--seed", type=int, help="seed of the --fail-writes random sequence")
    add("--latency", type=float, default=0.0, help="fault: milliseconds added to every request")
    add("--throttle-next", type=int, default=0,
        help="fault: answer the next N requests 429 Too Many Requests with Retry-After")
    add("--throttle-fraction", type=float, default=0.0,
        help="fault: fraction of requests answered 429 with Retry-After (seeded by --seed)")
    add("--throttle-verbs", default=",".join(ALL_VERBS),
        help="comma-separated verbs the 429 faults apply to (default: every verb)")
    add("--retry-after", type=int, default=1,
        help="seconds sent in the Retry-After header of a 429 (default 1)")
    add("--timeout-next", type=int, default=0,
        help="fault: the next N creates commit and are then answered 504 Timeout")
    add("--timeout-fraction", type=float, default=0.0,
        help="fault: fraction of creates that commit and are then answered 504 Timeout")
    add("--timeout-verbs", default="create",
        help="comma-separated write verbs the 504 faults apply to (default create)")
    add("--event-ttl", type=float,
        help="seconds an Event lives after its last write, as kube-apiserver's --event-ttl "
             "(default: Events never expire)")
    add("--storage-reinit", type=float, default=0.0,
        help="fault: seconds during which a CRD's list and watch requests get 429 "
             "'storage is (re)initializing' after a CRD update replaced its storage (default 0)")
    add("--service-cidr", action="append",
        help="service cluster IP range, one per family (default 10.96.0.0/12)")
    add("--no-builtin-crds", action="store_true",
        help="do not preinstall the metallb.io and frrk8s.metallb.io CRDs")
    add("--crd-dir", action="append", default=[],
        help="preinstall the CRDs of every *.yaml in DIR instead (repeatable; default: the "
             "repository's crds/ and e2e/kubeapi/crds/)")
    add("--no-schema-validation", action="store_true",
        help="store custom resources without checking them against their CRD's schema and CEL "
             "rules (pruning and defaulting still happen); to measure the cost of validation")
    add("--conversion-webhooks", action="store_true",
        help="no effect, kept for old command lines: a CRD with a conversion webhook is always "
             "converted through it, as on a real server")
    add("--no-rbac", action="store_true",
        help="do not authorise ServiceAccount tokens by RBAC (allow them everything); to "
             "measure the cost of authorisation")
    add("--authz-log", metavar="FILE",
        help="append every distinct RBAC decision on a ServiceAccount's request to FILE "
             "(JSON lines)")
    add("--grace-scale", type=float, default=1.0,
        help="a deleted Pod is removed after its grace period times this factor (default 1; "
             "nobody runs a kubelet here, so the server ends the grace period itself)")
    add("--verbose", action="store_true", help="log every request to stderr")
    return parser.parse_args(argv)


def _verbs(flag: str, text: str) -> tuple:
    verbs = tuple(v for v in text.split(",") if v)
    unknown = [v for v in verbs if v not in ALL_VERBS]
    if unknown:
        raise SystemExit(f"{flag}: unknown verb(s) {', '.join(unknown)}; known: "
                         f"{', '.join(ALL_VERBS)}")
    return verbs


def fault_plan(args: argparse.Namespace) -> FaultPlan:
    return FaultPlan(throttle_next=args.throttle_next, throttle_fraction=args.throttle_fraction,
                     retry_after=args.retry_after,
                     throttle_verbs=_verbs("--throttle-verbs", args.throttle_verbs),
                     timeout_next=args.timeout_next, timeout_fraction=args.timeout_fraction,
                     timeout_verbs=_verbs("--timeout-verbs", args.timeout_verbs),
                     event_ttl=args.event_ttl, storage_reinit=args.storage_reinit)


def main(argv=None) -> int:
    args = parse_args(argv)
    server = KubeApiServer(
        address=args.address, port=args.port, tokens=args.token, tls=not args.insecure_http,
        cert_dir=args.cert_dir, namespaces=args.namespace, history=args.history,
        bookmark_interval=args.bookmark_interval, compaction_window=args.compaction_window,
        close_watches_after=args.close_watches_after,
        fail_writes=args.fail_writes, seed=args.seed, latency_ms=args.latency,
        service_cidrs=args.service_cidr or ("10.96.0.0/12",),
        builtin_crds=not args.no_builtin_crds, crd_dirs=args.crd_dir or None,
        schema_validation=not args.no_schema_validation,
        rbac=not args.no_rbac,
        authz_log=args.authz_log, verbose=args.verbose, faults=fault_plan(args),
        grace_scale=args.grace_scale).start()
    done = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: done.set())
    try:
        if args.kubeconfig_out:
            server.write_kubeconfig(args.kubeconfig_out)
        if args.port_file:
            write_file_atomically(args.port_file, f"{server.port}\n")
        print(f"ingot-kubeapi listening on {server.url}", flush=True)
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    return 0
