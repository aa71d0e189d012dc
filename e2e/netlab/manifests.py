# SPDX-License-Identifier: Apache-2.0
"""Kubernetes and MetalLB manifests for lab scenarios, as plain dicts, written as a multi-document
YAML file (each document in JSON flow style, which is valid YAML) for `ingotctl render -f`.

The builders produce exactly what a user would apply: metallb.io config objects in the MetalLB
namespace, Nodes with their InternalIP, and Services whose status already holds the address the
controller assigned, with an EndpointSlice naming the nodes that serve them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Optional, Sequence

METALLB_NS = "metallb-system"


def _meta(name: str, namespace: Optional[str] = METALLB_NS, labels: Optional[dict] = None
          ) -> dict:
    meta = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    return meta


def node(name: str, address: str, labels: Optional[dict] = None) -> dict:
    all_labels = {"kubernetes.io/hostname": name, **(labels or {})}
    return {"apiVersion": "v1", "kind": "Node", "metadata": _meta(name, None, all_labels),
            "status": {"addresses": [{"type": "InternalIP", "address": address}],
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def namespace(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(name, None)}


def ip_address_pool(name: str, addresses: Sequence[str], auto_assign: bool = True) -> dict:
    return {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool", "metadata": _meta(name),
            "spec": {"addresses": list(addresses), "autoAssign": auto_assign}}


def bfd_profile(name: str, receive_ms: int, transmit_ms: int, multiplier: int) -> dict:
    return {"apiVersion": "metallb.io/v1beta1", "kind": "BFDProfile", "metadata": _meta(name),
            "spec": {"receiveInterval": receive_ms, "transmitInterval": transmit_ms,
                     "detectMultiplier": multiplier, "echoMode": False, "passiveMode": False}}


def bgp_peer(name: str, my_asn: int, peer_asn: int, address: str, *,
             bfd_profile_name: str = "", hold: str = "9s", keepalive: str = "3s",
             connect: str = "2s", extra: Optional[dict] = None) -> dict:
    """extra: further spec fields (e.g. nodeSelectors)."""
    spec = {"myASN": my_asn, "peerASN": peer_asn, "peerAddress": address, "holdTime": hold,
            "keepaliveTime": keepalive, "connectTime": connect, **(extra or {})}
    if bfd_profile_name:
        spec["bfdProfile"] = bfd_profile_name
    return {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer", "metadata": _meta(name),
            "spec": spec}


def bgp_advertisement(name: str, pools: Sequence[str], *, communities: Sequence[str] = (),
                      local_pref: int = 0, peers: Sequence[str] = (),
                      service_selector: Optional[dict] = None,
                      extra: Optional[dict] = None) -> dict:
    """extra: further spec fields (aggregationLength, nodeSelectors, …)."""
    spec: dict = {"ipAddressPools": list(pools), **(extra or {})}
    if communities:
        spec["communities"] = list(communities)
    if local_pref:
        spec["localPref"] = local_pref
    if peers:
        spec["peers"] = list(peers)
    if service_selector:
        spec["serviceSelectors"] = [{"matchLabels": dict(service_selector)}]
    return {"apiVersion": "metallb.io/v1beta1", "kind": "BGPAdvertisement",
            "metadata": _meta(name), "spec": spec}


def l2_advertisement(name: str, pools: Sequence[str], *, node_selector: Optional[dict] = None,
                     interfaces: Sequence[str] = (), extra: Optional[dict] = None) -> dict:
    """extra: further spec fields (serviceSelectors, …)."""
    spec: dict = {"ipAddressPools": list(pools), **(extra or {})}
    if node_selector:
        spec["nodeSelectors"] = [{"matchLabels": dict(node_selector)}]
    if interfaces:
        spec["interfaces"] = list(interfaces)
    return {"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
            "metadata": _meta(name), "spec": spec}


def community_aliases(name: str, aliases: dict) -> dict:
    return {"apiVersion": "metallb.io/v1beta1", "kind": "Community", "metadata": _meta(name),
            "spec": {"communities": [{"name": k, "value": v} for k, v in sorted(aliases.items())]}}


def service(name: str, ns: str, vip: str, *, cluster_ip: str, labels: Optional[dict] = None,
            policy: str = "Cluster", annotations: Optional[dict] = None) -> dict:
    """A LoadBalancer Service whose status already holds vip (as the controller wrote it; an
    API server resets the status on create, so ask for vip with the
    metallb.io/loadBalancerIPs annotation there)."""
    meta = _meta(name, ns, labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta,
            "spec": {"type": "LoadBalancer", "clusterIP": cluster_ip, "clusterIPs": [cluster_ip],
                     "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                     "externalTrafficPolicy": policy, "selector": {"app": name},
                     "ports": [{"name": "http", "protocol": "TCP", "port": 80,
                                "targetPort": 8080}]},
            "status": {"loadBalancer": {"ingress": [{"ip": vip}]}}}


def endpoint_slice(service_name: str, ns: str, endpoints: Iterable[tuple]) -> dict:
    """An EndpointSlice of service_name with one ready endpoint per (pod address, node name)."""
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": _meta(f"{service_name}-lab", ns,
                              {"kubernetes.io/service-name": service_name}),
            "addressType": "IPv4",
            "endpoints": [{"addresses": [addr], "nodeName": node_name,
                           "conditions": {"ready": True, "serving": True, "terminating": False}}
                          for addr, node_name in endpoints],
            "ports": [{"name": "http", "protocol": "TCP", "port": 8080}]}


def to_yaml(objects: Iterable[dict]) -> str:
    """Returns the objects as one multi-document YAML text."""
    return "".join(f"---\n{json.dumps(o, sort_keys=True)}\n" for o in objects)


def write(path: Path, objects: Iterable[dict]) -> Path:
    path.write_text(to_yaml(objects))
    return path
