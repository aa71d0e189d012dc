# SPDX-License-Identifier: Apache-2.0
"""Label and field selectors: parsing (with the real server's error texts) and matching."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import bad_request
from .meta import meta_of
from .registry import Resource


LABEL_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL_KEY_RE = re.compile(rf"^(({DNS_SUBDOMAIN})/)?{LABEL_NAME}$")
_LABEL_VALUE_RE = re.compile(rf"^({LABEL_NAME})?$")
_SET_RE = re.compile(r"^\s*([^\s!=<>(),]+)\s+(in|notin)\s*\((.*)\)\s*$")
_COMPARE_RE = re.compile(r"^\s*([^\s!=<>(),]+)\s*(==|=|!=|<|>)\s*([^\s!=<>(),]*)\s*$")
_EXISTS_RE = re.compile(r"^\s*(!?)\s*([^\s!=<>(),]+)\s*$")


@dataclass(frozen=True)
class Requirement:
    """One label selector requirement: exists, !, =, !=, in, notin, gt or lt."""

    key: str
    op: str
    values: tuple = ()

    def matches(self, labels: dict) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        try:
            number = int(value)
        except (TypeError, ValueError):
            return False
        bound = int(self.values[0])
        return number > bound if self.op == "gt" else number < bound


def _split_top_level(text: str) -> list:
    """Splits on commas that are not inside parentheses."""
    parts, depth, current = [], 0, []
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _checked_requirement(key: str, op: str, values: tuple, text: str) -> Requirement:
    if len(key) > 316 or not _LABEL_KEY_RE.match(key) or len(key.rpartition("/")[2]) > 63:
        raise bad_request(f'unable to parse requirement: invalid label key "{key}"')
    for value in values:
        if len(value) > 63 or not _LABEL_VALUE_RE.match(value):
            raise bad_request(f'unable to parse requirement: invalid label value "{value}"')
    if op in ("in", "notin") and not values:
        raise bad_request(f"unable to parse requirement: for 'in', 'notin' operators, "
                          f"values set can't be empty: {text.strip()}")
    if op in ("gt", "lt") and not re.fullmatch(r"-?\d+", values[0]):
        raise bad_request(f'unable to parse requirement: for "gt", "lt" operators, the value '
                          f'must be an integer: {text.strip()}')
    return Requirement(key, op, values)


def _parse_requirement(text: str) -> Requirement:
    match = _SET_RE.match(text)
    if match:
        values = tuple(v.strip() for v in match[3].split(",") if v.strip())
        return _checked_requirement(match[1], match[2], values, text)
    match = _COMPARE_RE.match(text)
    if match:
        op = {"==": "=", "<": "lt", ">": "gt"}.get(match[2], match[2])
        return _checked_requirement(match[1], op, (match[3],), text)
    match = _EXISTS_RE.match(text)
    if match:
        return _checked_requirement(match[2], "!" if match[1] else "exists", (), text)
    raise bad_request(f"unable to parse requirement: cannot parse '{text.strip()}'")


def parse_label_selector(text: str) -> tuple:
    """Parses a labelSelector query string into Requirements (all must match)."""
    if not text or not text.strip():
        return ()
    return tuple(_parse_requirement(part) for part in _split_top_level(text))


def parse_field_selector(text: str, res: Resource) -> tuple:
    """Parses a fieldSelector into (field, wants_equal, value), rejecting unsupported fields."""
    if not text or not text.strip():
        return ()
    supported = ("metadata.name", "metadata.namespace") + res.field_selectors
    terms = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*([^\s!=]+)\s*(==|=|!=)\s*(.*?)\s*", part)
        if not match:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        if match[1] not in supported:
            if res.custom:
                known = ", ".join(f'"{f}"' for f in supported)
                raise bad_request(f'"{match[1]}" is not a known field selector: only {known}')
            raise bad_request(f"field label not supported: {match[1]}")
        terms.append((match[1], match[2] != "!=", match[3]))
    return tuple(terms)


def field_value(obj: dict, path: str) -> str:
    """Returns the string a field selector compares for a dotted path ("" when absent)."""
    current: Any = obj
    for part in path.split("."):
        current = current.get(part) if isinstance(current, dict) else None
    if current is None:
        return ""
    if isinstance(current, bool):
        return "true" if current else "false"
    return str(current)


@dataclass(frozen=True)
class ObjectFilter:
    """What a list or watch selects: a namespace ("" = all) plus label and field terms."""

    namespace: str = ""
    labels: tuple = ()
    fields: tuple = ()

    def matches(self, obj: dict) -> bool:
        meta = meta_of(obj)
        if self.namespace and meta.get("namespace", "") != self.namespace:
            return False
        labels = meta.get("labels") or {}
        if not all(r.matches(labels) for r in self.labels):
            return False
        return all((field_value(obj, f) == v) == eq for f, eq, v in self.fields)

    @property
    def has_selectors(self) -> bool:
        return bool(self.labels or self.fields)
