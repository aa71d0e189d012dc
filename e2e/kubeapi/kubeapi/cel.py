# SPDX-License-Identifier: Apache-2.0
"""The CEL rules (x-kubernetes-validations) this server evaluates. No CEL library is packaged
for Debian, so each rule the preinstalled CRDs use is implemented here by hand, keyed by its
exact text (whitespace-insensitive). A CRD that carries any other rule is refused when it is
created (`unknown_rules`), so a rule is never silently skipped.

Implemented rules:

* `connect-time-range`: `duration(self).getSeconds() >= 1 && duration(self).getSeconds() <=
  65535` (BGPPeer v1beta2 and FRRConfiguration neighbor `connectTime`);
* `connect-time-whole-seconds`: `duration(self).getMilliseconds() % 1000 == 0` (same fields);
* `immutable`: `self == oldSelf`, a transition rule, checked only on an update that had the
  value before (BGPPeer `enableGracefulRestart`, ServiceL2Status / ServiceBGPStatus
  `status.node`, `status.serviceName`, `status.serviceNamespace`);
* `service-selectors-default-aggregation`: BGPAdvertisement `spec` may have non-empty
  `serviceSelectors` only with the default aggregation lengths (32 and 128)."""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000,
          "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


class EvaluationError(Exception):
    """A rule could not be evaluated on the value (e.g. duration() of a malformed string)."""


def parse_duration_ns(text: str) -> int:
    """Parses a Go duration string ("1m30s", "1.5s", "-2h") into nanoseconds, as CEL's
    duration() does; raises EvaluationError on anything else."""
    if not isinstance(text, str):
        raise EvaluationError(f"no such overload: duration({type(text).__name__})")
    sign, rest = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
    if rest == "0":
        return 0
    total, pos = 0.0, 0
    while pos < len(rest):
        match = _DURATION_PART.match(rest, pos)
        if not match:
            raise EvaluationError(f"type conversion error from 'string' to "
                                  f"'google.protobuf.Duration': invalid duration {text!r}")
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if not rest:
        raise EvaluationError(f"invalid duration {text!r}")
    return sign * int(total)


def _connect_time_range(value: Any, old: Any) -> bool:
    seconds = int(parse_duration_ns(value) / 1_000_000_000)  # getSeconds() truncates
    return 1 <= seconds <= 65535


def _connect_time_whole_seconds(value: Any, old: Any) -> bool:
    milliseconds = int(parse_duration_ns(value) / 1_000_000)
    return milliseconds % 1000 == 0


def _immutable(value: Any, old: Any) -> bool:
    return value == old


def _service_selectors_default_aggregation(spec: Any, old: Any) -> bool:
    if not spec.get("serviceSelectors"):
        return True
    return spec.get("aggregationLength", 32) == 32 and spec.get("aggregationLengthV6", 128) == 128


class Rule:
    """One implemented rule: its name, whether it reads oldSelf, and its predicate."""

    def __init__(self, name: str, transition: bool, check: Callable[[Any, Any], bool]):
        self.name = name
        self.transition = transition
        self.check = check


def _key(rule: str) -> str:
    return re.sub(r"\s+", "", rule)


RULES = {_key(text): rule for text, rule in (
    ("duration(self).getSeconds() >= 1 && duration(self).getSeconds() <= 65535",
     Rule("connect-time-range", False, _connect_time_range)),
    ("duration(self).getMilliseconds() % 1000 == 0",
     Rule("connect-time-whole-seconds", False, _connect_time_whole_seconds)),
    ("self == oldSelf", Rule("immutable", True, _immutable)),
    ("!has(self.serviceSelectors) || self.serviceSelectors.size() == 0 || "
     "((!has(self.aggregationLength) || self.aggregationLength == 32) && "
     "(!has(self.aggregationLengthV6) || self.aggregationLengthV6 == 128))",
     Rule("service-selectors-default-aggregation", False, _service_selectors_default_aggregation)),
)}


def rule_names() -> list:
    return [rule.name for rule in RULES.values()]


def lookup(rule: str) -> Optional[Rule]:
    return RULES.get(_key(rule))


def unknown_rules(schema: Any, path: str = "") -> list:
    """Returns (schema path, rule) for every x-kubernetes-validations rule under schema that
    this server does not implement."""
    found = []
    if not isinstance(schema, dict):
        return found
    for index, entry in enumerate(schema.get("x-kubernetes-validations") or []):
        if lookup(entry.get("rule", "")) is None:
            found.append((f"{path}.x-kubernetes-validations[{index}].rule", entry.get("rule")))
    for name, sub in (schema.get("properties") or {}).items():
        found += unknown_rules(sub, f"{path}.properties[{name}]")
    for key in ("items", "additionalProperties"):
        found += unknown_rules(schema.get(key), f"{path}.{key}")
    return found
