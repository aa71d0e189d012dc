# SPDX-License-Identifier: Apache-2.0
"""Decoding of request bodies in the Kubernetes protobuf encoding
(`Content-Type: application/vnd.kubernetes.protobuf`), which kubectl 1.32 uses for the
built-in kinds its `create namespace|configmap|secret` commands send.

The envelope (k8s.io/apimachinery pkg/runtime/serializer/protobuf) is the 4-byte magic
`k8s\\x00` followed by a runtime.Unknown message: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw (the
object's own message), 3 contentEncoding, 4 contentType. The object messages follow
k8s.io/api/core/v1/generated.proto; only the kinds below are decoded, into the JSON form the
rest of the server works on. Other kinds get 415 UnsupportedMediaType."""

from __future__ import annotations

import base64
from typing import Callable

from .errors import ApiError

MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"


class ProtobufError(ValueError):
    pass


def fields(data: bytes) -> list:
    """Splits a protobuf message into (field number, wire type, value) triples: varints as
    int, length-delimited fields as bytes; fixed32/64 as bytes."""
    out, pos = [], 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise ProtobufError("truncated length-delimited field")
            value, pos = data[pos:pos + length], pos + length
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > len(data):
                raise ProtobufError("truncated fixed-size field")
            value, pos = data[pos:pos + size], pos + size
        else:
            raise ProtobufError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _varint(data: bytes, pos: int) -> tuple:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ProtobufError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _text(value: bytes) -> str:
    try:
        return value.decode()
    except UnicodeDecodeError:
        raise ProtobufError("string field is not UTF-8") from None


def _map_entry(value: bytes, decode_value: Callable) -> tuple:
    key, item = "", decode_value(b"")
    for number, _, field in fields(value):
        if number == 1:
            key = _text(field)
        elif number == 2:
            item = decode_value(field)
    return key, item


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _owner_reference(data: bytes) -> dict:
    names = {1: "kind", 3: "name", 4: "uid", 5: "apiVersion"}
    ref: dict = {}
    for number, wire, value in fields(data):
        if number in names and value:
            ref[names[number]] = _text(value)
        elif number == 6 and wire == 0:
            ref["controller"] = bool(value)
        elif number == 7 and wire == 0:
            ref["blockOwnerDeletion"] = bool(value)
    return ref


def object_meta(data: bytes) -> dict:
    """ObjectMeta: the fields a client sets (server-owned ones are dropped by the server)."""
    strings = {1: "name", 2: "generateName", 3: "namespace", 6: "resourceVersion"}
    meta: dict = {}
    for number, _, value in fields(data):
        if number in strings:
            if value:  # Go writes empty strings; JSON omits them (omitempty)
                meta[strings[number]] = _text(value)
        elif number in (11, 12):
            key, item = _map_entry(value, _text)
            meta.setdefault("labels" if number == 11 else "annotations", {})[key] = item
        elif number == 13:
            meta.setdefault("ownerReferences", []).append(_owner_reference(value))
        elif number == 14:
            meta.setdefault("finalizers", []).append(_text(value))
    return meta


def _namespace(data: bytes) -> dict:
    obj: dict = {}
    for number, _, value in fields(data):
        if number == 1:
            obj["metadata"] = object_meta(value)
        elif number == 2:
            finalizers = [_text(v) for n, _, v in fields(value) if n == 1]
            obj["spec"] = {"finalizers": finalizers} if finalizers else {}
    return obj


def _config_map(data: bytes) -> dict:
    obj: dict = {}
    for number, wire, value in fields(data):
        if number == 1:
            obj["metadata"] = object_meta(value)
        elif number == 2:
            key, item = _map_entry(value, _text)
            obj.setdefault("data", {})[key] = item
        elif number == 3:
            key, item = _map_entry(value, _b64)
            obj.setdefault("binaryData", {})[key] = item
        elif number == 4 and wire == 0:
            obj["immutable"] = bool(value)
    return obj


def _secret(data: bytes) -> dict:
    obj: dict = {}
    for number, wire, value in fields(data):
        if number == 1:
            obj["metadata"] = object_meta(value)
        elif number == 2:
            key, item = _map_entry(value, _b64)
            obj.setdefault("data", {})[key] = item
        elif number == 3 and value:
            obj["type"] = _text(value)
        elif number == 4:
            key, item = _map_entry(value, _text)
            obj.setdefault("stringData", {})[key] = item
        elif number == 5 and wire == 0:
            obj["immutable"] = bool(value)
    return obj


DECODERS = {("v1", "Namespace"): _namespace, ("v1", "ConfigMap"): _config_map,
            ("v1", "Secret"): _secret}


def unsupported(kind: str) -> ApiError:
    return ApiError(415, "UnsupportedMediaType",
                    f"the body of the request was in an unknown format - this test server "
                    f"decodes {MEDIA_TYPE} only for Namespace, ConfigMap and Secret, not {kind}; "
                    "accepted media types include: application/json")


def decode(body: bytes) -> dict:
    """Returns the JSON form of a protobuf-encoded object (apiVersion and kind included);
    400 BadRequest for a malformed body, 415 for a kind this server does not decode."""
    if not body.startswith(MAGIC):
        raise ApiError(400, "BadRequest", "the request body is not a Kubernetes protobuf "
                       "message: the k8s\\x00 prefix is missing")
    try:
        api_version = kind = ""
        raw = b""
        for number, _, value in fields(body[len(MAGIC):]):
            if number == 1:
                for inner, _, text in fields(value):
                    if inner == 1:
                        api_version = _text(text)
                    elif inner == 2:
                        kind = _text(text)
            elif number == 2:
                raw = value
            elif number == 3 and value:
                raise ProtobufError(f"unsupported content encoding {_text(value)!r}")
        decoder = DECODERS.get((api_version, kind))
        if decoder is None:
            raise unsupported(f"{api_version}, Kind={kind}")
        obj = decoder(raw)
    except ProtobufError as err:
        raise ApiError(400, "BadRequest", f"the request body is not a valid protobuf "
                       f"message: {err}") from None
    obj["apiVersion"], obj["kind"] = api_version, kind
    obj.setdefault("metadata", {})
    return obj
