# SPDX-License-Identifier: Apache-2.0
"""Object metadata validation as the real API server runs it on every create and update, for
every kind (k8s.io/apimachinery pkg/api/validation/objectmeta.go: ValidateObjectMeta,
ValidateLabels, ValidateAnnotations, ValidateOwnerReferences, ValidateFinalizers), and the
rule that a custom resource may not be updated without a resourceVersion
(apiextensions-apiserver customResourceStrategy.AllowUnconditionalUpdate is false, so
k8s.io/apiserver pkg/registry/rest/update.go BeforeUpdate refuses it).

Every check raises a FieldError carrying all the causes found, which the caller turns into one
422 Invalid naming the fields, e.g.

    ConfigMap "c" is invalid: metadata.labels: Invalid value: "a b": a valid label must be ...
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import FieldError, invalid_many
from .meta import meta_of

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024  # TotalAnnotationSizeLimitB
LABEL_VALUE_MAX = 63
QUALIFIED_NAME_MAX = 63
SUBDOMAIN_MAX = 253

_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME_PART_RE = re.compile(rf"^{_NAME_PART}$")
_LABEL_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_LABEL_VALUE_RE = re.compile(rf"^{_LABEL_VALUE}$")
_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_SUBDOMAIN_RE = re.compile(rf"^{_SUBDOMAIN}$")
_LABEL1123_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    f"for validation is '{_SUBDOMAIN}')")
_NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    f"validation is '{_NAME_PART}')")
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    f"'my_value',  or '12345', regex used for validation is '{_LABEL_VALUE}')")
_LABEL1123_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def go_quote(value: Any) -> str:
    """A value as field.Invalid prints it: strings quoted, null for nil."""
    return json.dumps(value, separators=(",", ":"))


def qualified_name_errors(value: str) -> list:
    """validation.IsQualifiedName: `[prefix/]name`, prefix a DNS subdomain, name at most 63
    characters of alphanumerics, '-', '_', '.'. Returns the messages (empty when valid)."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errors = []
    elif len(parts) == 2:
        prefix, name = parts
        errors = []
        if not prefix:
            errors.append("prefix part must be non-empty")
        elif len(prefix) > SUBDOMAIN_MAX:
            errors.append(f"prefix part must be no more than {SUBDOMAIN_MAX} characters")
        elif not _SUBDOMAIN_RE.match(prefix):
            errors.append("prefix part " + _SUBDOMAIN_MSG)
    else:
        return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyName',  or "
                "'my.name',  or '123-abc', regex used for validation is "
                f"'({_NAME_PART}/)?{_NAME_PART}') with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX:
        errors.append(f"name part must be no more than {QUALIFIED_NAME_MAX} characters")
    if name and not _NAME_PART_RE.match(name):
        errors.append(_NAME_PART_MSG)
    return errors


def label_value_errors(value: str) -> list:
    """validation.IsValidLabelValue."""
    errors = []
    if len(value) > LABEL_VALUE_MAX:
        errors.append(f"must be no more than {LABEL_VALUE_MAX} characters")
    if not _LABEL_VALUE_RE.match(value):
        errors.append(_LABEL_VALUE_MSG)
    return errors


def _string_map(causes: list, field: str, value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        causes.append((field, "FieldValueInvalid",
                       f"Invalid value: {go_quote(value)}: must be a map of strings"))
        return {}
    return value


def _labels(causes: list, labels: dict) -> None:
    """ValidateLabels: every key a qualified name, every value a label value; the field is
    metadata.labels itself, as the real server reports it."""
    for key, value in labels.items():
        for message in qualified_name_errors(key):
            causes.append(("metadata.labels", "FieldValueInvalid",
                           f"Invalid value: {go_quote(key)}: {message}"))
        for message in label_value_errors(value):
            causes.append(("metadata.labels", "FieldValueInvalid",
                           f"Invalid value: {go_quote(value)}: {message}"))


def _annotations(causes: list, annotations: dict) -> None:
    """ValidateAnnotations: keys are qualified names (checked lower-cased), and keys plus
    values total at most 256 KiB."""
    total = 0
    for key, value in annotations.items():
        for message in qualified_name_errors(key.lower()):
            causes.append(("metadata.annotations", "FieldValueInvalid",
                           f"Invalid value: {go_quote(key)}: {message}"))
        total += len(key) + len(value)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        causes.append(("metadata.annotations", "FieldValueTooLong",
                       f"Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"))


def _list_of(causes: list, field: str, value: Any, item_type: type, what: str) -> list:
    """Returns value when it is a list of item_type; otherwise records why not (absent is an
    empty list)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, item_type) for v in value):
        causes.append((field, "FieldValueInvalid",
                       f"Invalid value: {go_quote(value)}: must be a list of {what}"))
        return []
    return value


def _owner_references(causes: list, value: Any) -> None:
    """ValidateOwnerReferences: apiVersion, kind, name and uid are required; at most one
    reference is the controller."""
    field = "metadata.ownerReferences"
    references = _list_of(causes, field, value, dict, "objects")
    controllers = []
    for ref in references:
        for key, message in (("apiVersion", "version must not be empty"),
                             ("kind", "kind must not be empty"),
                             ("name", "name must not be empty"),
                             ("uid", "uid must not be empty")):
            if not ref.get(key):
                causes.append((f"{field}.{key}", "FieldValueInvalid",
                               f'Invalid value: "": {message}'))
        if ref.get("controller") is True:
            controllers.append(ref)
    if len(controllers) > 1:
        names = ", ".join(f'{{{r.get("kind")} {r.get("name")}}}' for r in controllers)
        causes.append((field, "FieldValueInvalid",
                       f"Invalid value: {go_quote(references)}: Only one reference can have "
                       f"Controller set to true. Found \"true\" in references for {names}"))


def _finalizers(causes: list, value: Any) -> None:
    """ValidateFinalizers: qualified names, no duplicates."""
    field = "metadata.finalizers"
    seen = set()
    for name in _list_of(causes, field, value, str, "strings"):
        for message in qualified_name_errors(name):
            causes.append((field, "FieldValueInvalid", f"Invalid value: {go_quote(name)}: {message}"))
        if name in seen:
            causes.append((field, "FieldValueDuplicate", f"Duplicate value: {go_quote(name)}"))
        seen.add(name)


def _generate_name(causes: list, res, meta: dict) -> None:
    """ValidateObjectMeta checks generateName with the kind's name rule, as a prefix (one
    trailing '-' allowed); this server checks the subdomain rule every kind accepts."""
    value = meta.get("generateName")
    if not value or not isinstance(value, str):
        return
    if res.name_rule == "path":
        if "/" in value or "%" in value:
            causes.append(("metadata.generateName", "FieldValueInvalid",
                           f"Invalid value: {go_quote(value)}: may not contain '/' or '%'"))
        return
    prefix = value[:-1] if value.endswith("-") else value
    pattern, message = (_LABEL1123_RE, _LABEL1123_MSG) if res.name_rule != "subdomain" \
        else (_SUBDOMAIN_RE, _SUBDOMAIN_MSG)
    if not pattern.match(prefix):
        causes.append(("metadata.generateName", "FieldValueInvalid",
                       f"Invalid value: {go_quote(value)}: {message}"))


def object_meta_causes(res, obj: dict, name_check=None) -> list:
    """Returns the (field, reason, message) causes ValidateObjectMeta finds in obj's metadata,
    in its order; name_check(res, name), when given, checks the name itself (raising
    FieldError, see cluster.validate_name)."""
    meta = meta_of(obj)
    causes: list = []
    _generate_name(causes, res, meta)
    if name_check is not None:
        try:
            name_check(res, meta.get("name", ""))
        except FieldError as err:
            causes += err.causes
    _labels(causes, _string_map(causes, "metadata.labels", meta.get("labels")))
    _annotations(causes, _string_map(causes, "metadata.annotations", meta.get("annotations")))
    _owner_references(causes, meta.get("ownerReferences"))
    _finalizers(causes, meta.get("finalizers"))
    return causes


def validate_object_meta(res, obj: dict, name_check=None) -> None:
    """Raises a FieldError with every metadata problem of obj (see object_meta_causes)."""
    causes = object_meta_causes(res, obj, name_check)
    if causes:
        raise invalid_many(causes)


def require_resource_version(res, body: dict) -> None:
    """A custom resource is never updated unconditionally: a PUT (main resource or /status)
    without metadata.resourceVersion is refused, as BeforeUpdate does for strategies whose
    AllowUnconditionalUpdate is false. Built-in kinds allow it."""
    if res.custom and not meta_of(body).get("resourceVersion"):
        raise FieldError("metadata.resourceVersion", "FieldValueInvalid",
                         "Invalid value: 0x0: must be specified for an update")


# Built-in kinds whose strategy sets metadata.generation (PrepareForCreate sets it to 1 and
# PrepareForUpdate bumps it when the spec changes); custom resources always do. Services
# (pkg/registry/core/service/strategy.go) and Pods (pkg/registry/core/pod/strategy.go, 1.32)
# never set it, so they carry none.
NO_GENERATION = {("", "services"), ("", "pods")}


def keeps_generation(res) -> bool:
    return res.custom or res.key not in NO_GENERATION
