# SPDX-License-Identifier: Apache-2.0
"""Small helpers on objects and request parameters shared by every module."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any, Optional

from .errors import bad_request


def utc_now() -> str:
    """Returns the current time as RFC 3339 UTC with a `Z`, at second precision."""
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_age(timestamp: Optional[str]) -> str:
    """Formats the time since an RFC 3339 timestamp like kubectl's AGE column."""
    if not timestamp:
        return "<unknown>"
    try:
        then = dt.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return "<invalid>"
    seconds = int((dt.datetime.now(dt.timezone.utc) - then).total_seconds())
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes, hours = seconds // 60, seconds // 3600
    if seconds < 600:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if hours < 3:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    return f"{hours // 24}d"


def canonical(value: Any) -> str:
    """Returns a canonical JSON text, for strict comparisons (true is not 1)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def parse_bool(text: str, name: str) -> bool:
    """Parses a query parameter the way Go's strconv.ParseBool does."""
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("", "0", "f", "F", "false", "FALSE", "False"):
        return False
    raise bad_request(f'invalid boolean value "{text}" for parameter {name}')


def parse_int(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_request(f'invalid integer value "{text}" for parameter {name}') from None


def object_key(namespace: str, name: str) -> str:
    """Returns the storage key of an object; lists are sorted by it, as etcd keys are."""
    return f"{namespace}/{name}" if namespace else name


def meta_of(obj: dict) -> dict:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def version_sort_key(version: str) -> tuple:
    """Orders versions like Kubernetes: GA, then beta, then alpha; higher numbers first."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not match:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[match[2]]
    return (stage, -int(match[1]), -int(match[3] or 0), "")


def clone(value: Any) -> Any:
    """Deep copy of JSON data (dicts, lists and immutable scalars), several times faster than
    copy.deepcopy, which handles arbitrary objects and shared references."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value
