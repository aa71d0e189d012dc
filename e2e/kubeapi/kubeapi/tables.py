# SPDX-License-Identifier: Apache-2.0
"""Output shapes other than the object itself: `Table` (kubectl get) and partial metadata."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .meta import human_age, meta_of
from .registry import Resource, with_version


@dataclass(frozen=True)
class Column:
    """One Table column: its definition and how to compute a cell from an object."""

    name: str
    type: str
    cell: Callable
    priority: int = 0
    format: str = ""
    description: str = ""


def _service_external_ip(svc: dict) -> str:
    spec = svc.get("spec") or {}
    if spec.get("type") == "LoadBalancer":
        ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        found = [i.get("ip") or i.get("hostname") for i in ingress
                 if i.get("ip") or i.get("hostname")]
        return ",".join(found + (spec.get("externalIPs") or [])) or "<pending>"
    return ",".join(spec.get("externalIPs") or []) or "<none>"


def _service_ports(svc: dict) -> str:
    ports = []
    for port in (svc.get("spec") or {}).get("ports") or []:
        node = f":{port['nodePort']}" if port.get("nodePort") else ""
        ports.append(f"{port.get('port')}{node}/{port.get('protocol', 'TCP')}")
    return ",".join(ports) or "<none>"


NAME_COLUMN = Column("Name", "string", lambda o: meta_of(o).get("name"), format="name",
                     description="Name must be unique within a namespace.")
AGE_COLUMN = Column("Age", "string", lambda o: human_age(meta_of(o).get("creationTimestamp")),
                    description="CreationTimestamp is a timestamp representing the server time "
                                "when this object was created.")
BUILTIN_COLUMNS = {
    ("", "services"): (
        Column("Type", "string", lambda o: (o.get("spec") or {}).get("type")),
        Column("Cluster-IP", "string",
               lambda o: (o.get("spec") or {}).get("clusterIP") or "<none>"),
        Column("External-IP", "string", _service_external_ip),
        Column("Port(s)", "string", _service_ports)),
    ("", "namespaces"): (
        Column("Status", "string", lambda o: (o.get("status") or {}).get("phase")),),
}


def json_path_value(obj: dict, path: str) -> Any:
    """Evaluates a simple printer-column JSONPath (.a.b.c) against an object."""
    current: Any = obj
    for part in path.strip("{}").lstrip(".").split("."):
        current = current.get(part) if isinstance(current, dict) else None
    return current


def _printer_cell(path: str, column_type: str) -> Callable:
    def cell(obj: dict) -> Any:
        value = json_path_value(obj, path)
        if column_type == "date" and isinstance(value, str):
            return human_age(value)
        if isinstance(value, (list, dict)):
            return json.dumps(value, separators=(",", ":"))
        return value
    return cell


def table_columns(res: Resource) -> list:
    """Returns the Table columns of a resource: built-in ones, or a CRD's printer columns."""
    if res.custom:
        if not res.columns:
            return [NAME_COLUMN, AGE_COLUMN]
        return [NAME_COLUMN] + [Column(n, "string" if t == "date" else t, _printer_cell(p, t), pr)
                                for n, t, p, pr in res.columns]
    return [NAME_COLUMN, *BUILTIN_COLUMNS.get(res.key, ()), AGE_COLUMN]


def partial_metadata(obj: dict) -> dict:
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": meta_of(obj)}


def table(res: Resource, objects: list, include: str, list_meta: dict, headers=True) -> dict:
    """Renders objects as a meta.k8s.io/v1 Table (what `kubectl get` asks for)."""
    columns = table_columns(res)
    rows = []
    for obj in objects:
        row = {"cells": [c.cell(obj) for c in columns]}
        if include == "Object":
            row["object"] = with_version(res, obj)
        elif include != "None":
            row["object"] = partial_metadata(obj)
        rows.append(row)
    definitions = [{"name": c.name, "type": c.type, "format": c.format,
                    "description": c.description, "priority": c.priority} for c in columns]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta,
            "columnDefinitions": definitions if headers else [], "rows": rows}


def requested_shape(accept: str) -> str:
    """Returns "Table", "Partial" or "" (plain JSON) from an Accept header, in client order.
    Unsupported shapes (aggregated discovery, protobuf) are skipped, so clients fall back."""
    for part in accept.split(","):
        media, *raw = [p.strip() for p in part.split(";")]
        params = dict(p.split("=", 1) for p in raw if "=" in p)
        shape = params.get("as")
        if shape == "Table" and params.get("g") == "meta.k8s.io":
            return "Table"
        if shape in ("PartialObjectMetadata", "PartialObjectMetadataList") \
                and params.get("g") == "meta.k8s.io" and params.get("v") == "v1":
            return "Partial"
        if not shape and media in ("application/json", "*/*", "application/*", ""):
            return ""
    return ""
