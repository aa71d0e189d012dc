# SPDX-License-Identifier: Apache-2.0
"""Differential test of the test API server's CRD validation (kubeapi/validation.py) against
Kubernetes' own OpenAPI validator, k8s.io/kube-openapi/pkg/validation (Debian's
golang-k8s-kube-openapi-dev), driven by oracle/openapi.

For every CRD the server preinstalls (crds/ and e2e/kubeapi/crds/) and each of its versions, a
corpus of objects is generated from the schema: one valid object, then one mutation at a time at
every field (wrong JSON types, null, integers past their bounds and integral floats, enum values
and others, pattern and length violations, `cidr` and `date-time` values real clients send,
required fields removed, empty lists and objects, unknown fields). Each object is judged by both
sides: accepted or refused by the OpenAPI part of the validation (the list-type and CEL checks
are compared elsewhere: kube-openapi does not run them), and which unknown fields structural
pruning drops. Every disagreement fails the test unless KNOWN lists it with its reason."""

from __future__ import annotations

import copy
import json
import re
import subprocess
from typing import Any, Iterator

import pytest

import go_oracles
import kubeapi
from kubeapi import validation
from kubeapi.defaulting import version_schema

# Values a client may send for the formats the CRDs use; each is judged by both sides.
CIDRS = ["10.0.0.0/24", "10.0.0.1/24", "fd00::/64", "fd00::1/128", "0.0.0.0/0", "::/0",
         "10.0.0.0", "fd00::", "10.0.0.0/33", "fd00::/129", "10.0.0.0/-1", "10.0.0.0/ 24",
         "010.0.0.0/8", "10.0.0.0/08", "10.0.0.0/255.0.0.0", "10.0.0.0/0.0.0.255",
         "fe80::1%eth0/64", "::ffff:10.0.0.0/104", "10.0.0/24", " 10.0.0.0/24", "",
         "10.0.0.0/24\n", "1.2.3.4.5/32", "fd00::/64/64", "FD00::/64", "fd00:00001::/64",
         "::10.0.0.1/128", "::010.0.0.1/128", "10.0.0.0/00000000032"]
DATE_TIMES = ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456789Z", "2024-01-02t03:04:05z",
              "2024-01-02T03:04:05+02:00", "2024-01-02T03:04:05-0200", "2024-01-02T03:04:05",
              "2024-01-02 03:04:05Z", "2024-01-02", "2024-02-30T00:00:00Z",
              "2024-01-02T24:00:00Z", "2024-01-02T23:59:60Z", "2024-01-02T03:04:05x9Z",
              "2024-01-02T03:04:05,5Z", "2024-01-02T03:04Z", "20240102T030405Z",
              "2024-01-02T03:04:05Z\n", "2024-01-02T03:04:05.Z", "", "not a time",
              "2024-01-02T03:04:05+24:00", "0000-01-01T00:00:00Z"]
# Extra schemas for formats no CRD of the repository uses but other CRDs do.
FORMAT_SCHEMAS = {
    fmt: {"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {"value": {"type": "string", "format": fmt}}}}}
    for fmt in ("ipv4", "ipv6", "ip", "int32", "date")}
# A schema with the shapes the CRDs above do not use: nullable and int-or-string fields.
SHAPES = {"type": "object", "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
    "spec": {"type": "object", "required": ["port"], "properties": {
        "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"},
                                                                {"type": "string"}]},
        "maybe": {"type": "string", "nullable": True, "maxLength": 3},
        "maybePort": {"x-kubernetes-int-or-string": True, "nullable": True},
        "ratio": {"type": "number", "minimum": 0.5, "exclusiveMaximum": True, "maximum": 2},
        "tags": {"type": "array", "maxItems": 2, "items": {"type": "string", "nullable": True}},
        "labels": {"type": "object", "maxProperties": 1,
                   "additionalProperties": {"type": "string"}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}
FORMAT_VALUES = ["10.0.0.1", "010.0.0.1", "fd00:00001::1", "::010.0.0.1", "1:2:3:4:5:6:7::",
                 "10.0.0.256", "fd00::1", "::ffff:10.0.0.1", "fe80::1%eth0", "2024-01-02",
                 "2024-13-01", "", "x"]

# (schema key, case label) -> why the two sides differ. Empty: they agree on every case.
KNOWN: dict = {
    ("shapes", "spec.ratio: integer 0"):
        "kube-openapi compares an integer with a fractional bound after cutting the bound to "
        "an integer (validate.MinimumNativeType: 0 >= int(0.5)); no CRD here has a "
        "fractional bound, and the test server compares exactly",
}


def schemas() -> dict:
    """schema key -> openAPIV3Schema, for every CRD version the server preinstalls."""
    out = {}
    for crd in kubeapi.BUILTIN_CRDS:
        for entry in crd["spec"]["versions"]:
            key = f'{crd["spec"]["names"]["kind"]}.{crd["spec"]["group"]}/{entry["name"]}'
            out[key] = version_schema(crd, entry["name"])
    out.update({f"format-{fmt}": schema for fmt, schema in FORMAT_SCHEMAS.items()})
    out["shapes"] = SHAPES
    return out


def sample(schema: dict) -> Any:
    """A value schema accepts, with every declared property present."""
    if schema.get("x-kubernetes-int-or-string"):
        return 1
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        value = {name: sample(sub) for name, sub in (schema.get("properties") or {}).items()}
        if isinstance(schema.get("additionalProperties"), dict):
            value["key"] = sample(schema["additionalProperties"])
        return value
    if kind == "array":
        return [sample(schema.get("items") or {}) for _ in range(max(1, schema.get(
            "minItems", 1)))]
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        if low is not None:
            return low + 1 if schema.get("exclusiveMinimum") else low
        return schema["maximum"] if "maximum" in schema else 1
    if kind == "boolean":
        return True
    if kind == "string":
        return {"cidr": "10.0.0.0/24", "date-time": "2024-01-02T03:04:05Z",
                "ipv4": "10.0.0.1", "ipv6": "fd00::1", "date": "2024-01-02"}.get(
            schema.get("format"), "Ready"[:schema.get("maxLength", 5)])
    return {}


def valid_object(key: str, schema: dict) -> dict:
    kind, _, version = key.partition("/")
    kind, _, group = kind.partition(".")
    obj = sample(schema)
    obj.update({"apiVersion": f"{group}/{version}" if group else "v1", "kind": kind,
                "metadata": {"name": "o", "namespace": "ns"}})
    return obj


def nodes(schema: dict, value: Any, parts: list) -> Iterator[tuple]:
    """(path, schema) of every field of value below the root's apiVersion, kind and
    metadata."""
    if parts:
        yield parts, schema
    if isinstance(value, dict):
        for name, sub in value.items():
            if not parts and name in ("apiVersion", "kind", "metadata"):
                continue
            sub_schema = (schema.get("properties") or {}).get(name)
            if sub_schema is None and isinstance(schema.get("additionalProperties"), dict):
                sub_schema = schema["additionalProperties"]
            if sub_schema is not None:
                yield from nodes(sub_schema, sub, parts + [name])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            yield from nodes(schema["items"], item, parts + [index])


def replacements(schema: dict, current: Any) -> Iterator[tuple]:
    """(label, value) of the values to try at one field of schema."""
    for value in ("x", 7, 1.5, True, [], {}, None):
        if type(value) is not type(current):
            yield f"type {json.dumps(value)}", value
    kind = schema.get("type")
    if kind in ("integer", "number"):
        for bound in ("minimum", "maximum"):
            if bound in schema:
                step = -1 if bound == "minimum" else 1
                yield f"{bound}", schema[bound]
                yield f"past {bound}", schema[bound] + step
                yield f"{bound} as float", float(schema[bound])
        for value in (0, -1, 2**31, -2**31 - 1, 2**63, 3.0, 3.5, 1e3, 2.0**60, -2.0**53):
            yield f"integer {value!r}", value
    if kind == "string":
        for value in schema.get("enum") or []:
            yield f"enum {value}", value
            yield f"enum {value} in upper case", value.upper()
        if "enum" in schema:
            yield "not in enum", "Bogus"
        if "pattern" in schema:
            for value in ("Ready\n", "1bad", "a b", "Ready_", "x/y", "example.com/Ready", "-a"):
                yield f"pattern {value!r}", value
        for bound in ("maxLength", "minLength"):
            if bound in schema:
                yield bound, "a" * schema[bound]
                yield f"past {bound}", "a" * (schema[bound] + (1 if bound == "maxLength"
                                                               else -1))
                yield f"{bound} multibyte", "é" * schema[bound]
        fmt = schema.get("format")
        values = {"cidr": CIDRS, "date-time": DATE_TIMES}.get(fmt, FORMAT_VALUES if fmt else [])
        for value in values:
            yield f"format {fmt} {value!r}", value
    if kind == "object":
        yield "empty object", {}
        for name in schema.get("required") or []:
            without = copy.deepcopy(current) if isinstance(current, dict) else {}
            without.pop(name, None)
            yield f"without required {name}", without
    if kind == "array":
        yield "empty list", []
        if "maxItems" in schema and isinstance(current, list) and current:
            yield "past maxItems", current[:1] * (schema["maxItems"] + 1)


def with_value(obj: dict, parts: list, value: Any) -> dict:
    out = copy.deepcopy(obj)
    target = out
    for part in parts[:-1]:
        target = target[part]
    target[parts[-1]] = value
    return out


def with_unknown_fields(obj: dict, schema: dict) -> dict:
    """obj with a field "bogusField" added to every object in it."""
    out = copy.deepcopy(obj)
    out["bogusField"] = 1
    for parts, _ in list(nodes(schema, out, [])):
        target = out
        for part in parts:
            target = target[part]
        if isinstance(target, dict):
            target["bogusField"] = {"nested": True}
    return out


def corpus() -> list:
    """(schema key, label, object) of every case."""
    cases = []
    for key, schema in schemas().items():
        base = valid_object(key, schema)
        cases.append((key, "valid", base))
        cases.append((key, "unknown fields everywhere", with_unknown_fields(base, schema)))
        for parts, sub in nodes(schema, base, []):
            field = validation.field_path(parts)
            target = base
            for part in parts:
                target = target[part]
            for label, value in replacements(sub, target):
                cases.append((key, f"{field}: {label}", with_value(base, parts, value)))
    return cases


def python_verdict(schema: dict, obj: dict) -> tuple:
    """(causes of refusal, sorted unknown field paths) of the test server's validation."""
    pruned = copy.deepcopy(obj)
    unknown = validation.prune_object(schema, pruned)
    # As the server's admission does before validating (whole floats become ints).
    admitted = validation.whole_floats_to_ints(copy.deepcopy(obj))
    causes = validation.validate_object(schema, validation.compile_schema(schema), admitted,
                                        None, walk=False)
    return causes, sorted(re.sub(r"\[\d+\]", "", path) for path in unknown)


@pytest.fixture(scope="module")
def oracle():
    return go_oracles.build_or_skip("openapi")


def test_validation_agrees_with_kube_openapi(oracle):
    all_schemas = schemas()
    cases = corpus()
    request = {"schemas": all_schemas,
               "cases": [{"schema": key, "object": obj} for key, _, obj in cases]}
    done = subprocess.run([str(oracle)], input=json.dumps(request), capture_output=True,
                          text=True, timeout=120, check=True)
    verdicts = json.loads(done.stdout)
    assert len(verdicts) == len(cases)
    disagreements = []
    refused = 0
    for (key, label, obj), verdict in zip(cases, verdicts):
        causes, unknown = python_verdict(all_schemas[key], obj)
        refused += bool(verdict["errors"])
        if bool(causes) != bool(verdict["errors"]):
            if (key, label) not in KNOWN:
                disagreements.append(f"{key} {label}: kube-openapi {verdict['errors'] or 'valid'}"
                                     f" / test server {causes or 'valid'}")
        if unknown != verdict["unknown"] and (key, f"{label} (pruning)") not in KNOWN:
            disagreements.append(f"{key} {label}: pruned by kube-openapi's schema "
                                 f"{verdict['unknown']} / by the test server {unknown}")
    print(f"{len(cases)} cases over {len(all_schemas)} schemas, {refused} refused by "
          f"kube-openapi, {len(disagreements)} disagreements")
    assert not disagreements, "\n".join(disagreements[:40]) + \
        f"\n({len(disagreements)} disagreements)"
    # The corpus must exercise both answers and every schema.
    assert 0 < refused < len(cases)
    assert {key for key, _, _ in cases} == set(all_schemas)


@pytest.mark.parametrize("key", sorted(schemas()))
def test_the_valid_sample_is_valid_for_both(key):
    schema = schemas()[key]
    causes, unknown = python_verdict(schema, valid_object(key, schema))
    assert causes == [] and unknown == []
