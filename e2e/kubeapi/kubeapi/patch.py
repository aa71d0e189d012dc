# SPDX-License-Identifier: Apache-2.0
"""The patch algorithms: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic
merge patch (without an OpenAPI schema; see README.md)."""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from .errors import bad_request
from .meta import canonical, clone
from .registry import Resource


class PatchError(Exception):
    """A patch that cannot be applied to the object (the server answers 422)."""


def merge_patch(target: Any, patch: Any) -> Any:
    """Applies an RFC 7386 JSON merge patch; returns a new value, inputs are not changed."""
    if not isinstance(patch, dict):
        return clone(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(path: Any) -> list:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise PatchError(f"invalid JSON pointer: {path!r}")
    if path == "":
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def _list_index(container: list, token: str, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not re.fullmatch(r"0|[1-9][0-9]*", token):
        raise PatchError(f"invalid array index: {token}")
    index = int(token)
    limit = len(container) if allow_end else len(container) - 1
    if index > limit:
        raise PatchError(f"array index out of bounds: {index}")
    return index


def _parent(doc: Any, tokens: list) -> Any:
    current = doc
    for token in tokens[:-1]:
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list):
            current = current[_list_index(current, token, False)]
        else:
            raise PatchError(f"path not found: /{'/'.join(tokens)}")
    return current


def _pointer_get(doc: Any, path: Any) -> Any:
    tokens = _pointer(path)
    if not tokens:
        return doc
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list):
        return parent[_list_index(parent, last, False)]
    raise PatchError(f"path not found: {path}")


def _pointer_add(doc: Any, path: Any, value: Any) -> Any:
    tokens = _pointer(path)
    if not tokens:
        return value
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_list_index(parent, last, True), value)
    else:
        raise PatchError(f"cannot add to a scalar at {path}")
    return doc


def _pointer_remove(doc: Any, path: Any) -> Any:
    tokens = _pointer(path)
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        del parent[last]
    elif isinstance(parent, list):
        del parent[_list_index(parent, last, False)]
    else:
        raise PatchError(f"path not found: {path}")
    return doc


def _pointer_replace(doc: Any, path: Any, value: Any) -> Any:
    tokens = _pointer(path)
    if not tokens:
        return value
    _pointer_get(doc, path)
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, list):
        parent[_list_index(parent, last, False)] = value
    else:
        parent[last] = value
    return doc


def _json_patch_op(doc: Any, op: Any) -> Any:
    if not isinstance(op, dict):
        raise PatchError(f"invalid operation: {op!r}")
    name, path = op.get("op"), op.get("path")
    if name in ("add", "replace", "test") and "value" not in op:
        raise PatchError(f"operation {name} needs a value")
    if name == "add":
        return _pointer_add(doc, path, clone(op["value"]))
    if name == "remove":
        return _pointer_remove(doc, path)
    if name == "replace":
        return _pointer_replace(doc, path, clone(op["value"]))
    if name == "test":
        if canonical(_pointer_get(doc, path)) != canonical(op["value"]):
            raise PatchError(f"testing value {path} failed: test failed")
        return doc
    if name in ("move", "copy"):
        source = op.get("from")
        value = clone(_pointer_get(doc, source))
        if name == "move":
            if isinstance(path, str) and path.startswith(f"{source}/"):
                raise PatchError(f"cannot move {source} into its own child {path}")
            doc = _pointer_remove(doc, source)
        return _pointer_add(doc, path, value)
    raise PatchError(f"Unexpected kind: {name}")


def json_patch(doc: Any, operations: Any) -> Any:
    """Applies an RFC 6902 JSON patch (add/remove/replace/move/copy/test) to a copy of doc."""
    if not isinstance(operations, list):
        raise bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = clone(doc)
    for op in operations:
        doc = _json_patch_op(doc, op)
    return doc


# Merge keys of lists that a strategic merge patch merges by key instead of replacing, for
# patches that do not name the key through a $setElementOrder directive. "*" = any kind.
MERGE_KEYS = {
    ("*", "metadata.ownerReferences"): "uid",
    ("*", "status.conditions"): "type",
    ("Service", "spec.ports"): "port",
    ("Node", "status.addresses"): "type",
    ("Node", "status.images"): None,
    ("Pod", "spec.containers"): "name",
    ("Pod", "spec.initContainers"): "name",
    ("Pod", "spec.volumes"): "name",
    ("Pod", "spec.containers.ports"): "containerPort",
    ("Pod", "spec.containers.env"): "name",
    ("Pod", "spec.containers.volumeMounts"): "mountPath",
}
# Lists of scalars whose patch strategy is "merge" (set union).
MERGE_SCALAR_LISTS = {"metadata.finalizers"}
_DELETE = object()


def _strip_directives(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_directives(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [_strip_directives(v) for v in value]
    return value


def _merge_key(kind: str, path: str, order: Any, patch_list: list) -> Optional[str]:
    if isinstance(order, list) and order and isinstance(order[0], dict) and len(order[0]) == 1:
        return next(iter(order[0]))
    key = MERGE_KEYS.get((kind, path), MERGE_KEYS.get(("*", path)))
    if key and all(isinstance(e, dict) for e in patch_list):
        return key
    return None


def _reorder(items: list, order: list, identity: Callable) -> list:
    """Puts items named in order first, in that order; the others follow unchanged."""
    rank = {canonical(o): i for i, o in enumerate(order)}
    named = [i for i in items if canonical(identity(i)) in rank]
    others = [i for i in items if canonical(identity(i)) not in rank]
    return sorted(named, key=lambda i: rank[canonical(identity(i))]) + others


def _merge_keyed_list(original: list, patch_list: list, key: str, kind: str, path: str) -> list:
    result = [clone(e) for e in original]
    for element in patch_list:
        if not isinstance(element, dict):
            raise PatchError(f"list {path} merges by key {key}, got a non-object element")
        index = next((i for i, e in enumerate(result)
                      if isinstance(e, dict) and e.get(key) == element.get(key)), None)
        if element.get("$patch") == "delete":
            if index is not None:
                del result[index]
        elif index is None:
            result.append(_strip_directives(element))
        else:
            result[index] = strategic_merge(result[index], element, kind, path)
    return result


def _merge_list(original: Any, patch_list: list, directives: dict, kind: str, path: str) -> list:
    original = original if isinstance(original, list) else []
    if any(isinstance(e, dict) and e.get("$patch") == "replace" for e in patch_list):
        return [_strip_directives(e) for e in patch_list
                if not (isinstance(e, dict) and e.get("$patch") == "replace")]
    order, deletions = directives.get("order"), directives.get("delete")
    key = _merge_key(kind, path, order, patch_list)
    if key:
        merged = _merge_keyed_list(original, patch_list, key, kind, path)
        return _reorder(merged, order, lambda e: {key: e.get(key)}) if order else merged
    if order is not None or deletions is not None or path in MERGE_SCALAR_LISTS:
        merged = original + [v for v in patch_list if v not in original]
        merged = [v for v in merged if v not in (deletions or [])]
        return _reorder(merged, order, lambda v: v) if order else merged
    return _strip_directives(patch_list)


def _list_directives(patch: dict, key: str) -> dict:
    return {"order": patch.get(f"$setElementOrder/{key}"),
            "delete": patch.get(f"$deleteFromPrimitiveList/{key}")}


def _apply_orphan_directives(result: dict, patch: dict, kind: str, path: str) -> None:
    """Applies $setElementOrder / $deleteFromPrimitiveList for lists the patch does not set."""
    for directive, value in patch.items():
        prefix, _, key = directive.partition("/")
        if not key or key in patch or not isinstance(result.get(key), list):
            continue
        child = f"{path}.{key}" if path else key
        if prefix == "$deleteFromPrimitiveList":
            result[key] = [v for v in result[key] if v not in (value or [])]
        elif prefix == "$setElementOrder" and isinstance(value, list):
            merge_key = _merge_key(kind, child, value, result[key])
            identity = (lambda e, k=merge_key: {k: e.get(k)}) if merge_key else (lambda v: v)
            result[key] = _reorder(result[key], value, identity)


def strategic_merge(original: Any, patch: Any, kind: str, path: str = "") -> Any:
    """Applies a strategic merge patch without an OpenAPI schema.

    Maps merge recursively and null deletes, as in a merge patch. Lists merge by key when the
    key is known (from a $setElementOrder directive or MERGE_KEYS), else they are replaced. The
    $patch (replace/delete/merge), $retainKeys, $setElementOrder and $deleteFromPrimitiveList
    directives are honoured."""
    if not isinstance(patch, dict):
        return clone(patch)
    directive = patch.get("$patch")
    if directive == "replace":
        return _strip_directives(patch)
    if directive == "delete":
        return _DELETE
    result = dict(original) if isinstance(original, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        child = f"{path}.{key}" if path else key
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            merged = strategic_merge(result.get(key), value, kind, child)
            if merged is _DELETE:
                result.pop(key, None)
            else:
                result[key] = merged
        elif isinstance(value, list):
            result[key] = _merge_list(result.get(key), value, _list_directives(patch, key),
                                      kind, child)
        else:
            result[key] = value
    _apply_orphan_directives(result, patch, kind, path)
    retain = patch.get("$retainKeys")
    if isinstance(retain, list):
        result = {k: v for k, v in result.items() if k in retain}
    return result


PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
}


def apply_patch(kind_of_patch: str, current: dict, document: Any, res: Resource) -> Any:
    """Applies a parsed patch document of the given type to an object; returns the result."""
    if kind_of_patch == "json":
        return json_patch(current, document)
    if not isinstance(document, dict):
        raise bad_request("patch document must be a JSON object")
    if kind_of_patch == "strategic":
        return strategic_merge(current, document, res.kind)
    return merge_patch(current, document)
