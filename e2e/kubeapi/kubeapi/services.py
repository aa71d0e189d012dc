# SPDX-License-Identifier: Apache-2.0
"""Service defaults and the allocation of cluster IPs and node ports."""

from __future__ import annotations

import ipaddress
from typing import Optional

from .errors import FieldError
from .meta import clone, meta_of, object_key

SERVICES = ("", "services")


class Taken:
    """What one Service's allocation may not take: the values other stored Services hold (an
    index of value -> owning object keys) plus what this allocation took already. Supports
    `in` and `add` like the set it replaces, without copying the index."""

    def __init__(self, owners: dict, own: str):
        self._owners = owners
        self._own = own
        self._new: set = set()

    def __contains__(self, value) -> bool:
        if value in self._new:
            return True
        holders = self._owners.get(value)
        return bool(holders) and (len(holders) > 1 or self._own not in holders)

    def add(self, value) -> None:
        self._new.add(value)


def _held(spec: dict) -> tuple:
    """Returns (cluster IPs, node ports) a stored Service spec holds."""
    ips = [ip for ip in spec.get("clusterIPs") or [] if ip != "None"]
    ports = [p["nodePort"] for p in spec.get("ports") or []
             if isinstance(p, dict) and p.get("nodePort")]
    return ips, ports


class ServiceAllocator:
    """Assigns cluster IPs from the service CIDRs and node ports from 30000-32767.

    Allocation is sequential (the real server picks at random) and derived from the stored
    Services, so a deleted Service frees its addresses and ports at once. The allocator keeps
    an index of what stored Services hold (`observe` is a Store observer) and, per family, the
    lowest offset that may be free, so an allocation costs O(1) amortised instead of a scan of
    every Service and every address before the first free one."""

    NODE_PORTS = range(30000, 32768)
    POLICIES = ("SingleStack", "PreferDualStack", "RequireDualStack")

    def __init__(self, cidrs):
        self.networks: dict = {}
        for cidr in cidrs:
            network = ipaddress.ip_network(cidr, strict=False)
            self.networks.setdefault(self._family(network.version), network)
        if not self.networks:
            raise ValueError("at least one service CIDR is needed")
        self.primary = next(iter(self.networks))
        self._ip_owners: dict = {}  # cluster IP -> object keys of the Services holding it
        self._port_owners: dict = {}  # node port -> object keys
        self._lowest_free = dict.fromkeys(self.networks, 1)  # offsets below are all taken

    def taken(self, namespace: str, name: str) -> tuple:
        """Returns (cluster IPs, node ports) that Service namespace/name may not take."""
        own = object_key(namespace, name)
        return Taken(self._ip_owners, own), Taken(self._port_owners, own)

    def observe(self, key: tuple, prev: Optional[dict], obj: Optional[dict]) -> None:
        """Store observer: follows the cluster IPs and node ports of stored Services."""
        if key != SERVICES:
            return
        meta = meta_of(obj or prev)
        own = object_key(meta.get("namespace", ""), meta["name"])
        before = _held((prev or {}).get("spec") or {})
        after = _held((obj or {}).get("spec") or {})
        for owners, old, new in ((self._ip_owners, before[0], after[0]),
                                 (self._port_owners, before[1], after[1])):
            for value in set(old) - set(new):
                holders = owners.get(value, set())
                holders.discard(own)
                if not holders:
                    owners.pop(value, None)
                    if owners is self._ip_owners:
                        self._released(value)
            for value in new:
                owners.setdefault(value, set()).add(own)

    def _released(self, ip: str) -> None:
        address = ipaddress.ip_address(ip)
        family = self._family(address.version)
        network = self.networks.get(family)
        if network is not None and address in network:
            offset = int(address) - int(network.network_address)
            self._lowest_free[family] = min(self._lowest_free[family], offset)

    @staticmethod
    def _family(ip_version: int) -> str:
        return "IPv4" if ip_version == 4 else "IPv6"

    def assign(self, spec: dict, old_spec: Optional[dict], used_ips: Taken,
               used_ports: Taken):
        """Fills spec.clusterIP(s), ipFamilies, ipFamilyPolicy and node ports; FieldError on a
        request that cannot be honoured."""
        if spec.get("type") == "ExternalName":
            for field in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
                spec.pop(field, None)
        elif old_spec and (old_spec.get("clusterIPs") or old_spec.get("clusterIP")):
            self._keep_cluster_ips(spec, old_spec)
        else:
            self._new_cluster_ips(spec, used_ips)
        self._assign_node_ports(spec, old_spec, used_ports)

    def _keep_cluster_ips(self, spec: dict, old_spec: dict) -> None:
        old_ips = old_spec.get("clusterIPs") or [old_spec["clusterIP"]]
        requested = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
        if requested and requested[0] != old_ips[0]:
            raise FieldError("spec.clusterIPs[0]", "FieldValueInvalid",
                             f'Invalid value: "{requested[0]}": may not change once set')
        spec["clusterIP"], spec["clusterIPs"] = old_ips[0], list(old_ips)
        for field in ("ipFamilies", "ipFamilyPolicy"):
            if field in old_spec:
                spec[field] = clone(old_spec[field])

    def _new_cluster_ips(self, spec: dict, used_ips: Taken) -> None:
        requested = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
        if requested[:1] == ["None"]:
            spec["clusterIP"], spec["clusterIPs"] = "None", ["None"]
            spec["ipFamilies"] = self._families(spec, [])
            return
        families = self._families(spec, requested)
        ips = [self._take_ip(family, requested[i] if i < len(requested) else None, used_ips,
                             f"spec.clusterIPs[{i}]") for i, family in enumerate(families)]
        spec["clusterIP"], spec["clusterIPs"], spec["ipFamilies"] = ips[0], ips, families

    def _families(self, spec: dict, requested: list) -> list:
        policy = spec.get("ipFamilyPolicy") or "SingleStack"
        if policy not in self.POLICIES:
            raise FieldError("spec.ipFamilyPolicy", "FieldValueNotSupported",
                             f'Unsupported value: "{policy}": supported values: '
                             '"PreferDualStack", "RequireDualStack", "SingleStack"')
        families = list(spec.get("ipFamilies") or [])
        if not families:
            families = [self._family_of(ip) for ip in requested] or [self.primary]
        for index, family in enumerate(families):
            if family not in self.networks:
                raise FieldError(f"spec.ipFamilies[{index}]", "FieldValueInvalid",
                                 f'Invalid value: "{family}": not configured on this cluster')
        if policy != "SingleStack" and len(families) == 1 and len(self.networks) == 2:
            families.append(next(f for f in self.networks if f != families[0]))
        if policy == "RequireDualStack" and len(families) < 2:
            raise FieldError("spec.ipFamilyPolicy", "FieldValueInvalid",
                             'Invalid value: "RequireDualStack": this cluster is not configured '
                             "for dual-stack services")
        if policy == "SingleStack" and len(families) > 1:
            raise FieldError("spec.ipFamilies", "FieldValueInvalid",
                             "Invalid value: when multiple IP families are specified, IP family "
                             "policy must be PreferDualStack or RequireDualStack")
        spec["ipFamilyPolicy"] = policy
        return families

    def _family_of(self, text: str) -> str:
        try:
            return self._family(ipaddress.ip_address(text).version)
        except ValueError:
            raise FieldError("spec.clusterIPs[0]", "FieldValueInvalid",
                             f'Invalid value: "{text}": must be a valid IP address') from None

    def _take_ip(self, family: str, wanted: Optional[str], used: Taken, field: str) -> str:
        network = self.networks[family]
        if wanted:
            try:
                address = ipaddress.ip_address(wanted)
            except ValueError:
                raise FieldError(field, "FieldValueInvalid",
                                 f'Invalid value: "{wanted}": must be a valid IP address') from None
            if address not in network:
                raise FieldError(field, "FieldValueInvalid",
                                 f'Invalid value: "{wanted}": provided IP is not in the valid '
                                 f"range. The range of valid IPs is {network}")
            if str(address) in used:
                raise FieldError(field, "FieldValueInvalid",
                                 f'Invalid value: "{wanted}": provided IP is already allocated')
            used.add(str(address))
            return str(address)
        base = int(network.network_address)
        for offset in range(self._lowest_free[family], min(network.num_addresses - 1, 1 << 20)):
            candidate = str(ipaddress.ip_address(base + offset))
            if candidate not in used:
                self._lowest_free[family] = offset  # not offset + 1: this write may not happen
                used.add(candidate)
                return candidate
        raise FieldError(field, "InternalError", f"range {network} is full")

    def _assign_node_ports(self, spec: dict, old_spec: Optional[dict], used: Taken) -> None:
        kind = spec.get("type")
        needs = kind == "NodePort" or (kind == "LoadBalancer"
                                       and spec.get("allocateLoadBalancerNodePorts", True))
        old = {(p.get("port"), p.get("protocol", "TCP")): p.get("nodePort")
               for p in (old_spec or {}).get("ports") or [] if p.get("nodePort")}
        for index, port in enumerate(spec.get("ports") or []):
            if kind not in ("NodePort", "LoadBalancer"):
                port.pop("nodePort", None)
                continue
            wanted = port.get("nodePort") or old.get((port.get("port"), port.get("protocol")))
            if wanted:
                port["nodePort"] = self._take_port(wanted, used, f"spec.ports[{index}].nodePort")
            elif needs:
                port["nodePort"] = self._take_port(None, used, f"spec.ports[{index}].nodePort")

    def _take_port(self, wanted: Optional[int], used: Taken, field: str) -> int:
        if wanted:
            if wanted not in self.NODE_PORTS:
                raise FieldError(field, "FieldValueInvalid",
                                 f"Invalid value: {wanted}: provided port is not in the valid "
                                 "range. The range of valid ports is 30000-32767")
            if wanted in used:
                raise FieldError(field, "FieldValueInvalid",
                                 f"Invalid value: {wanted}: provided port is already allocated")
            used.add(wanted)
            return wanted
        port = next((p for p in self.NODE_PORTS if p not in used), None)
        if port is None:
            raise FieldError(field, "InternalError", "node port range is full")
        used.add(port)
        return port


def default_service_spec(spec: dict) -> None:
    """Sets the defaults the API server gives a Service spec."""
    kind = spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    for port in spec.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            if "port" in port:
                port.setdefault("targetPort", port["port"])
    if kind != "ExternalName":
        spec.setdefault("internalTrafficPolicy", "Cluster")
    if kind in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if kind == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
