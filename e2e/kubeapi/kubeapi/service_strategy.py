# SPDX-License-Identifier: Apache-2.0
"""The Service checks of the real server's strategy beyond allocation (services.py):
`spec.loadBalancerClass` may not change while the Service stays of type LoadBalancer
(pkg/apis/core/validation validateLoadBalancerClassField, from ValidateServiceUpdate), and a
status write gets `ipMode: VIP` defaulted for every ingress with an ip (pkg/apis/core/v1
SetDefaults_Service, feature LoadBalancerIPMode, on since 1.30) and then validated
(ValidateLoadBalancerStatus, from ValidateServiceStatusUpdate): ip a valid IP address,
hostname a DNS name and not an IP, ipMode VIP or Proxy and only with an ip."""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Optional

from .errors import FieldError, invalid_many
from .objectmeta import go_quote

IP_MODES = ("VIP", "Proxy")
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _is_ip(text: Any) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def check_load_balancer_class(spec: dict, old_spec: Optional[dict]) -> None:
    """Refuses a change of spec.loadBalancerClass (setting, clearing or replacing it) on an
    update that keeps type LoadBalancer, and a class on a Service of another type. An update
    away from LoadBalancer that keeps the old class drops it first, as the strategy's
    dropTypeDependentFields does."""
    if old_spec is not None and old_spec.get("type") == "LoadBalancer" \
            and spec.get("type") != "LoadBalancer" \
            and spec.get("loadBalancerClass") == old_spec.get("loadBalancerClass"):
        spec.pop("loadBalancerClass", None)
    cls = spec.get("loadBalancerClass")
    if old_spec is not None and old_spec.get("type") == "LoadBalancer" \
            and spec.get("type") == "LoadBalancer" and cls != old_spec.get("loadBalancerClass"):
        raise FieldError("spec.loadBalancerClass", "FieldValueInvalid",
                         f"Invalid value: {go_quote(cls)}: may not change once set")
    if cls is not None and spec.get("type") != "LoadBalancer":
        raise FieldError("spec.loadBalancerClass", "FieldValueForbidden",
                         "Forbidden: may only be used when `type` is 'LoadBalancer'")


def default_status(status: Any) -> None:
    """Sets ipMode VIP on each status.loadBalancer.ingress entry that has an ip and no mode."""
    ingress = ((status or {}).get("loadBalancer") or {}).get("ingress") \
        if isinstance(status, dict) and isinstance(status.get("loadBalancer"), dict) else None
    for entry in ingress or []:
        if isinstance(entry, dict) and entry.get("ip") and entry.get("ipMode") is None:
            entry["ipMode"] = "VIP"


def load_balancer_status_causes(status: Any) -> list:
    """Returns the (field, reason, message) causes of an invalid status.loadBalancer."""
    if not isinstance(status, dict) or not isinstance(status.get("loadBalancer"), dict):
        return []
    ingress = status["loadBalancer"].get("ingress") or []
    base = "status.loadBalancer.ingress"
    if not isinstance(ingress, list):
        return [(base, "FieldValueInvalid", f"Invalid value: {go_quote(ingress)}: must be a list")]
    causes = []
    for index, entry in enumerate(ingress):
        path = f"{base}[{index}]"
        if not isinstance(entry, dict):
            causes.append((path, "FieldValueInvalid",
                           f"Invalid value: {go_quote(entry)}: must be an object"))
            continue
        ip, hostname, mode = entry.get("ip"), entry.get("hostname"), entry.get("ipMode")
        if ip and not _is_ip(ip):
            causes.append((f"{path}.ip", "FieldValueInvalid",
                           f"Invalid value: {go_quote(ip)}: must be a valid IP address"))
        if mode is not None:
            if not ip:
                causes.append((f"{path}.ipMode", "FieldValueForbidden",
                               "Forbidden: may not be specified when `ip` is not"))
            elif mode not in IP_MODES:
                causes.append((f"{path}.ipMode", "FieldValueNotSupported",
                               f"Unsupported value: {go_quote(mode)}: supported values: "
                               '"VIP", "Proxy"'))
        if hostname:
            if not isinstance(hostname, str) or not _SUBDOMAIN_RE.match(hostname) \
                    or len(hostname) > 253:
                causes.append((f"{path}.hostname", "FieldValueInvalid",
                               f"Invalid value: {go_quote(hostname)}: a lowercase RFC 1123 "
                               "subdomain must consist of lower case alphanumeric characters, "
                               "'-' or '.', and must start and end with an alphanumeric "
                               "character"))
            elif _is_ip(hostname):
                causes.append((f"{path}.hostname", "FieldValueInvalid",
                               f"Invalid value: {go_quote(hostname)}: must be a DNS name, not "
                               "an IP address"))
    return causes


def prepare_status_update(status: Any) -> None:
    """Defaults then validates a Service status written through /status."""
    default_status(status)
    causes = load_balancer_status_causes(status)
    if causes:
        raise invalid_many(causes)
