# SPDX-License-Identifier: Apache-2.0
"""Structural schema validation of custom resources, as a real API server does it after
defaulting: unknown fields and nulls are pruned, then the object is checked against its CRD's
openAPIV3Schema for the version written (type, enum, required, minimum/maximum, pattern,
lengths, item counts, the formats of formats.py, with python3-jsonschema), then the
`x-kubernetes-list-type` set/map uniqueness and the CEL rules (cel.py). Every failure becomes a
cause of one 422 Invalid worded like the real server's, e.g.

    BGPPeer.metallb.io "p" is invalid: spec.peerPort: Invalid value: 0: spec.peerPort in body
    should be greater than or equal to 1

Ratcheting (letting an update keep an already invalid, unchanged value) is not done."""

from __future__ import annotations

import json
import threading
from typing import Any

import jsonschema
import jsonschema.validators

from . import cel, formats
from .admission import AdmissionPlugin, AdmissionRequest, request_param, warn
from .defaulting import version_schema
from .errors import ApiError, invalid_many
from .store import Store

_CRDS = ("apiextensions.k8s.io", "customresourcedefinitions")
_ABSENT = object()
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"))


def json_type(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and not formats.is_integer(value):
        return "number"  # past int64: the real server decodes it as a float
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return "null"


def go_value(value: Any) -> str:
    """A value as Go's field errors print it: strings quoted, numbers and booleans bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value, separators=(",", ":"))


def field_path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


# -- pruning ---------------------------------------------------------------------------------

def prune(schema: dict, value: Any, parts: list, unknown: list) -> None:
    """Drops the fields schema does not declare (unless it preserves unknown fields) and the
    nulls of non-nullable fields, recursively, as the real server does before defaulting. The
    paths of the unknown fields dropped are appended to unknown."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        keep_unknown = schema.get("x-kubernetes-preserve-unknown-fields") or extra is True
        for key in list(value):
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if value[key] is None and not (sub or {}).get("nullable"):
                del value[key]
            elif sub is not None:
                prune(sub, value[key], parts + [key], unknown)
            elif not keep_unknown:
                del value[key]
                unknown.append(field_path(parts + [key]))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            prune(schema["items"], item, parts + [index], unknown)


def whole_floats_to_ints(value: Any) -> Any:
    """value with every float that kube-openapi takes for an integer (formats.is_integer) made
    an int, in place where it can be: the real server decodes 179.0 as a float64 and Go's
    encoder writes it back as 179, so clients never read 179.0."""
    if isinstance(value, float) and formats.is_integer(value):
        return int(value)
    if isinstance(value, dict):
        for key, sub in value.items():
            value[key] = whole_floats_to_ints(sub)
    elif isinstance(value, list):
        value[:] = [whole_floats_to_ints(sub) for sub in value]
    return value


def prune_object(schema: dict, obj: dict) -> list:
    """Prunes a whole custom resource (metadata is the server's and is left alone); returns
    the paths of the unknown fields dropped."""
    unknown: list = []
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        prune(schema, {k: v for k, v in obj.items() if k != "metadata"}, [], unknown)
        return unknown
    for key in list(obj):
        if key not in ("apiVersion", "kind", "metadata"):
            sub = (schema.get("properties") or {}).get(key)
            if sub is None:
                del obj[key]
                unknown.append(key)
            else:
                prune(sub, obj[key], [key], unknown)
    return unknown


# -- OpenAPI to JSON Schema ------------------------------------------------------------------

def _checker() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(formats=())
    for name, check in formats.CHECKS.items():
        checker.checks(name)(lambda value, check=check: not isinstance(value, str)
                             or check(value))
    return checker


FORMATS = _checker()


def _pattern(validator, pattern, instance, schema):
    """The `pattern` keyword with Go's regular expression semantics (formats.go_regex)."""
    if isinstance(instance, str) and not formats.go_regex(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


# Draft 4 with kube-openapi's integers (formats.is_integer) and Go's regular expressions.
_Validator = jsonschema.validators.extend(
    jsonschema.Draft4Validator, validators={"pattern": _pattern},
    type_checker=jsonschema.Draft4Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: formats.is_integer(value)))


def compile_schema(schema: dict):
    """The validator of one CRD version's openAPIV3Schema."""
    return _Validator(to_json_schema(schema), format_checker=FORMATS)


def to_json_schema(node: Any) -> Any:
    """Turns an OpenAPI v3 structural schema into a draft 4 JSON Schema (nullable and
    int-or-string become type unions; x- extensions are left for the walk below). A string
    with a format the server supports also admits an array, as kube-openapi's type check
    does (it takes a list for the bytes of the string)."""
    if not isinstance(node, dict):
        return node
    out = {}
    for key, sub in node.items():
        if key == "properties":
            out[key] = {name: to_json_schema(s) for name, s in sub.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = to_json_schema(sub)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [to_json_schema(s) for s in sub]
        elif key not in ("default", "description", "example", "nullable") \
                and not key.startswith("x-"):
            out[key] = sub
    if node.get("x-kubernetes-int-or-string"):
        out["type"] = ["integer", "string"]
    elif node.get("type") == "string" and formats.supported(node.get("format")):
        out["type"] = ["string", "array"]
    if node.get("nullable") and "type" in out:
        out["type"] = (out["type"] if isinstance(out["type"], list) else [out["type"]]) \
            + ["null"]
    return out


def schema_cause(error: jsonschema.ValidationError) -> list:
    """The field errors the real server reports for one JSON Schema failure."""
    path = field_path(error.absolute_path)
    value, kind, limit = error.instance, error.validator, error.validator_value
    if kind == "required":
        missing = [name for name in limit if isinstance(value, dict) and name not in value]
        return [(field_path(list(error.absolute_path) + [name]), "FieldValueRequired",
                 "Required value") for name in missing]
    if kind == "enum":
        allowed = ", ".join(go_value(v) for v in limit)
        return [(path, "FieldValueNotSupported",
                 f"Unsupported value: {go_value(value)}: supported values: {allowed}")]
    if kind == "type":
        expected = limit if isinstance(limit, str) else limit[0]
        actual = json_type(value)
        return [(path, "FieldValueTypeInvalid", f'Invalid value: "{actual}": {path} in body '
                 f'must be of type {expected}: "{actual}"')]
    if kind == "maxLength":
        return [(path, "FieldValueTooLong", f"Too long: may not be more than {limit} bytes")]
    if kind == "maxItems":
        return [(path, "FieldValueTooMany",
                 f"Too many: {len(value)}: must have at most {limit} items")]
    return [(path, "FieldValueInvalid",
             f"Invalid value: {go_value(value)}: {path} in body {_body_message(error)}")]


def _body_message(error: jsonschema.ValidationError) -> str:
    limit, node = error.validator_value, error.schema
    or_equal = {"minimum": "" if node.get("exclusiveMinimum") else "or equal to ",
                "maximum": "" if node.get("exclusiveMaximum") else "or equal to "}
    return {
        "minimum": f"should be greater than {or_equal['minimum']}{limit}",
        "maximum": f"should be less than {or_equal['maximum']}{limit}",
        "pattern": f"should match '{limit}'",
        "minLength": f"should be at least {limit} chars long",
        "minItems": f"should have at least {limit} items",
        "format": f"must be of type {limit}: {go_value(error.instance)}",
        "multipleOf": f"should be a multiple of {limit}",
        "uniqueItems": "shouldn't contain duplicates",
        "minProperties": f"should have at least {limit} properties",
        "maxProperties": f"should have at most {limit} properties",
    }.get(error.validator, error.message)


# -- list types and CEL rules ----------------------------------------------------------------

def _list_key(item: Any, keys: list) -> Any:
    if isinstance(item, dict):
        return tuple(json.dumps(item.get(k), sort_keys=True) for k in keys)
    return json.dumps(item, sort_keys=True)


def _duplicate(path: str, index: int, item: Any, keys: list) -> tuple:
    if keys and isinstance(item, dict):
        shown = ",".join(f'"{k}":{go_value(item.get(k))}' for k in keys)
        shown = f"map[string]interface {{}}{{{shown}}}"
    else:
        shown = go_value(item)
    return (f"{path}[{index}]", "FieldValueDuplicate", f"Duplicate value: {shown}")


def _correlated(schema: dict, value: list, old: Any) -> list:
    """The old item of every new item of a list: matched by key for list-type map, else none
    (the real server only correlates map lists for transition rules)."""
    keys = schema.get("x-kubernetes-list-map-keys") or []
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(old, list) or not keys:
        return [_ABSENT] * len(value)
    by_key = {_list_key(item, keys): item for item in old}
    return [by_key.get(_list_key(item, keys), _ABSENT) for item in value]


class RuleWalk:
    """Walks an object along its schema, collecting list-type and CEL rule failures."""

    def __init__(self):
        self.causes: list = []

    def walk(self, schema: dict, value: Any, old: Any, parts: list) -> None:
        self._rules(schema, value, old, parts)
        if isinstance(value, dict):
            properties = schema.get("properties") or {}
            extra = schema.get("additionalProperties")
            for key, sub_value in value.items():
                sub = properties.get(key, extra if isinstance(extra, dict) else None)
                if sub is not None:
                    sub_old = old.get(key, _ABSENT) if isinstance(old, dict) else _ABSENT
                    self.walk(sub, sub_value, sub_old, parts + [key])
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            self._unique(schema, value, field_path(parts))
            for index, (item, item_old) in enumerate(zip(value, _correlated(schema, value,
                                                                              old))):
                self.walk(schema["items"], item, item_old, parts + [index])

    def _unique(self, schema: dict, value: list, path: str) -> None:
        kind = schema.get("x-kubernetes-list-type")
        if kind not in ("set", "map"):
            return
        keys = schema.get("x-kubernetes-list-map-keys") or [] if kind == "map" else []
        seen = set()
        for index, item in enumerate(value):
            key = _list_key(item, keys)
            if key in seen:
                self.causes.append(_duplicate(path, index, item, keys))
            seen.add(key)

    def _rules(self, schema: dict, value: Any, old: Any, parts: list) -> None:
        path = field_path(parts) or "<nil>"
        for entry in schema.get("x-kubernetes-validations") or []:
            rule = cel.lookup(entry.get("rule", ""))
            if rule is None:  # refused when the CRD was created; never skipped silently
                raise RuntimeError(f"CEL rule not implemented: {entry.get('rule')!r}")
            if rule.transition and old is _ABSENT:
                continue
            shown = schema.get("type", json_type(value))
            try:
                ok = rule.check(value, None if old is _ABSENT else old)
            except cel.EvaluationError as err:
                self.causes.append((path, "FieldValueInvalid", f'Invalid value: "{shown}": '
                                    f"{entry.get('rule')}: {err}"))
                continue
            if not ok:
                message = entry.get("message") or f"failed rule: {entry.get('rule')}"
                self.causes.append((path, entry.get("reason", "FieldValueInvalid"),
                                    f'Invalid value: "{shown}": {message}'))


# -- the admission plugin --------------------------------------------------------------------

def needs_walk(schema: Any) -> bool:
    """Whether schema has anything RuleWalk checks (a CEL rule or a set/map list type)."""
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations") or \
            schema.get("x-kubernetes-list-type") in ("set", "map"):
        return True
    return any(needs_walk(sub) for sub in (schema.get("properties") or {}).values()) \
        or needs_walk(schema.get("items")) or needs_walk(schema.get("additionalProperties"))


def validate_object(schema: dict, validator, obj: dict, old: Any, walk: bool = True) -> list:
    """Returns the causes (field, reason, message) why obj (already pruned and defaulted)
    breaks schema; old is the stored object of an update (None on create). walk=False skips
    the list-type and CEL checks (for a schema without any, see needs_walk)."""
    causes = []
    for error in validator.iter_errors({k: v for k, v in obj.items() if k != "metadata"}):
        causes += schema_cause(error)
    if not causes and walk:
        walk = RuleWalk()
        walk.walk(schema, obj, _ABSENT if old is None else old, [])
        causes = walk.causes
    return sorted(causes, key=lambda cause: cause[0])


def _crd_of(store: Store, request: AdmissionRequest):
    """The CRD of a created or updated custom resource, or None for anything else."""
    res = request.res
    if not res.custom or request.operation not in ("CREATE", "UPDATE"):
        return None
    return store.get(_CRDS, "", res.qualified)


class SchemaPruning(AdmissionPlugin):
    """Drops unknown fields and nulls of created and updated custom resources (status writes
    included), and writes whole floats as ints (whole_floats_to_ints); runs first, before
    SchemaDefaulting. The request's `fieldValidation` decides
    what an unknown field does besides: `Strict` (kubectl's default) refuses the write with a
    400 as a real server's strict decoding does, `Warn` (the default) adds a Warning header
    per field, `Ignore` nothing."""

    def __init__(self, store: Store):
        self.store = store

    def admit(self, request: AdmissionRequest) -> None:
        crd = _crd_of(self.store, request)
        if crd is None:
            return
        res = request.res
        unknown = prune_object(version_schema(crd, res.version), request.obj)
        whole_floats_to_ints(request.obj)
        mode = request_param("fieldValidation") or "Warn"
        texts = [f'unknown field "{path}"' for path in unknown]
        if texts and mode == "Strict":
            raise ApiError(400, "BadRequest", f'{res.kind} in version "{res.version}" cannot be '
                           f"handled as a {res.kind}: strict decoding error: "
                           + ", ".join(texts))
        if mode == "Warn":
            for text in texts:
                warn(text)


class SchemaValidation(AdmissionPlugin):
    """Validates created and updated custom resources (status writes included) against their
    CRD's schema, after SchemaDefaulting. `enabled = False` turns it off (to measure its
    cost)."""

    def __init__(self, store: Store):
        self.store = store
        self.enabled = True
        self._lock = threading.Lock()
        # (CRD uid, resourceVersion, version) -> (validator, whether RuleWalk has work)
        self._validators: dict = {}

    def admit(self, request: AdmissionRequest) -> None:
        crd = _crd_of(self.store, request) if self.enabled else None
        if crd is None:
            return
        res = request.res
        schema = version_schema(crd, res.version)
        validator, walk = self._validator(crd, res.version, schema)
        causes = validate_object(schema, validator, request.obj, request.old, walk)
        if causes:
            raise invalid_many(causes)

    def _validator(self, crd: dict, version: str, schema: dict):
        meta = crd["metadata"]
        key = (meta.get("uid"), meta.get("resourceVersion"), version)
        with self._lock:
            compiled = self._validators.get(key)
            if compiled is None:
                compiled = (compile_schema(schema), needs_walk(schema))
                self._validators[key] = compiled
            return compiled
