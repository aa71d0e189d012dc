# SPDX-License-Identifier: Apache-2.0
"""Building blocks of the CustomResourceDefinitions that crds/generate.py writes: OpenAPI v3
schema nodes (each with its description) and the CRD envelope around them."""

from __future__ import annotations

from typing import Optional

UINT32_MAX = 4294967295


def _node(kind: str, description: str, **facts) -> dict:
    node = {"description": description, "type": kind}
    for key, value in facts.items():
        if value is not None:
            node[key.replace("_", "-") if key.startswith("x_") else key] = value
    return node


def string(description: str, **facts) -> dict:
    """A string property; facts are enum, pattern, format, maxLength, x_kubernetes_validations."""
    return _node("string", description, **facts)


def boolean(description: str, default: Optional[bool] = None, **facts) -> dict:
    return _node("boolean", description, default=default, **facts)


def integer(description: str, fmt: Optional[str] = None, minimum: Optional[int] = None,
            maximum: Optional[int] = None, default: Optional[int] = None) -> dict:
    """An integer property. Key order follows what kubectl explain prints: default, format,
    maximum, minimum."""
    node = {"default": default, "description": description, "format": fmt,
            "maximum": maximum, "minimum": minimum, "type": "integer"}
    return {k: v for k, v in node.items() if v is not None}


def uint32(description: str, minimum: int = 0) -> dict:
    """An unsigned 32-bit number carried in an int64, as an AS number is."""
    return integer(description, "int64", minimum, UINT32_MAX)


def array(description: str, items: dict, **facts) -> dict:
    return _node("array", description, items=items, **facts)


def strings(description: str, **facts) -> dict:
    return array(description, {"type": "string"}, **facts)


def obj(description: str, properties: Optional[dict] = None, required=(), **facts) -> dict:
    node = _node("object", description, **facts)
    if properties is not None:
        node["properties"] = dict(sorted(properties.items()))
    if required:
        node["required"] = list(required)
    return node


def cel(*rules) -> list:
    """x-kubernetes-validations entries from (rule, message) pairs."""
    return [{"message": message, "rule": rule} for rule, message in rules]


IMMUTABLE = cel(("self == oldSelf", "Value is immutable"))


def label_selector(description: str) -> dict:
    """A metav1.LabelSelector: matchLabels ANDed with matchExpressions; empty selects all."""
    requirement = obj(
        "One requirement: a label key, an operator and the values it compares the label with.",
        {
            "key": string("The label key the requirement applies to."),
            "operator": string("How the key relates to the values: In, NotIn, Exists or "
                               "DoesNotExist."),
            "values": strings("The values compared with. In and NotIn need at least one; "
                              "Exists and DoesNotExist need none.",
                              x_kubernetes_list_type="atomic"),
        }, required=("key", "operator"))
    return obj(description, {
        "matchExpressions": array("Requirements on labels, all of which must hold.", requirement,
                                  x_kubernetes_list_type="atomic"),
        "matchLabels": obj("Labels that must be present with exactly these values.",
                           additionalProperties={"type": "string"}),
    }, x_kubernetes_map_type="atomic")


def selectors(description: str) -> dict:
    return array(description, label_selector("A label selector; an empty one selects "
                                             "everything."))


def root(description: str, spec: Optional[dict], status: Optional[dict],
         required=()) -> dict:
    """The openAPIV3Schema of a kind: the type and object metadata, then spec and status."""
    properties = {
        "apiVersion": string("The versioned schema of this object, e.g. metallb.io/v1beta1."),
        "kind": string("The REST resource this object represents, in CamelCase."),
        "metadata": {"type": "object"},
    }
    if spec is not None:
        properties["spec"] = spec
    if status is not None:
        properties["status"] = status
    return obj(description, properties, required=required)


def column(name: str, path: str, kind: str = "string", priority: int = 0) -> dict:
    entry = {"jsonPath": path, "name": name}
    if priority:
        entry["priority"] = priority
    entry["type"] = kind
    return entry


def version(name: str, schema: dict, columns=(), storage: bool = True,
            deprecation: Optional[str] = None) -> dict:
    entry = {}
    if columns:
        entry["additionalPrinterColumns"] = list(columns)
    if deprecation:
        entry["deprecated"] = True
        entry["deprecationWarning"] = deprecation
    entry.update({"name": name, "schema": {"openAPIV3Schema": schema}, "served": True,
                  "storage": storage, "subresources": {"status": {}}})
    return entry


def crd(group: str, kind: str, plural: str, versions: list, scope: str = "Namespaced",
        conversion: Optional[dict] = None) -> dict:
    spec = {}
    if conversion:
        spec["conversion"] = conversion
    spec.update({
        "group": group,
        "names": {"kind": kind, "listKind": f"{kind}List", "plural": plural,
                  "singular": kind.lower()},
        "scope": scope,
        "versions": versions,
    })
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"}, "spec": spec}
