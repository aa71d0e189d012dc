# SPDX-License-Identifier: Apache-2.0
"""`/openapi/v2`: a minimal valid Swagger 2.0 document (no paths, no definitions), which
clients that still fetch it (kubectl before 1.27 for validation and patches, `kubectl explain
--output plaintext-openapiv2`) accept; they then find no schema for a kind, as for an
aggregated API without one.

client-go asks for the protobuf form (`Accept: application/com.github.proto-openapi.spec.v2
@v1.0+protobuf`) and parses it as a gnostic openapi_v2.Document: 1 swagger (string), 2 info
(Info: 1 title, 2 version), 8 paths (Paths), 9 definitions (Definitions). Other clients get
the JSON form. The answer's Content-Type is
`application/com.github.proto-openapi.spec.v2.v1.0+protobuf` (Go's mime parser refuses the
'@' of the name clients ask for)."""

from __future__ import annotations

import json

from .discovery import KUBE_VERSION

# Clients ask with the old name containing '@'; answers use the name Go's mime parser accepts.
PROTOBUF_MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
TITLE = "Kubernetes"


def document() -> dict:
    return {"swagger": "2.0", "info": {"title": TITLE, "version": KUBE_VERSION["gitVersion"]},
            "paths": {}, "definitions": {}}


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def document_protobuf() -> bytes:
    """The document above as a gnostic openapi_v2.Document message (empty paths and
    definitions are present, as their JSON objects are)."""
    doc = document()
    info = _field(1, doc["info"]["title"].encode()) + _field(2, doc["info"]["version"].encode())
    return _field(1, doc["swagger"].encode()) + _field(2, info) + _field(8, b"") + _field(9, b"")


def render(accept: str) -> tuple:
    """Returns (body, content type) for a request with this Accept header."""
    if "protobuf" in accept:
        return document_protobuf(), PROTOBUF_MEDIA_TYPE
    return (json.dumps(document(), separators=(",", ":")) + "\n").encode(), "application/json"
