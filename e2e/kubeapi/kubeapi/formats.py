# SPDX-License-Identifier: Apache-2.0
"""The OpenAPI string formats of CRD schemas as kube-apiserver checks them, and its regular
expression and integer semantics, for validation.py.

The real server validates with k8s.io/kube-openapi (go-openapi's validator): `cidr` is Go's
net.ParseCIDR that tolerates leading zeros in IPv4 octets (k8s.io/utils/net
ParseCIDRSloppy), `ipv4` any address with a dot that the same sloppy parser reads, `ipv6` any
address with a colon that Go's net.ParseIP reads, `date` Go's time.Parse("2006-01-02"),
`date-time` strfmt.IsDateTime (an RFC 3339 date, a `T`, then the pattern below). A format
the server does not support for CRDs (`ip`, `int32`, `int64`, ...) is ignored, as it is there.
kubeapi/test_oracle_openapi.py compares all of this with the Go library itself."""

from __future__ import annotations

import functools
import re

_DIGITS = re.compile(r"[0-9]+")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
# strfmt's DateTimePattern (its "." before the fraction matches any character).
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))\Z",
                   re.ASCII)
_BIG = 0xFFFFFF  # the limit of Go's net.dtoi


def _number(text: str, digits: str, base: int) -> tuple:
    """Go's net.dtoi (base 10) and net.xtoi (base 16): (value, characters read, ok) of the
    number text starts with."""
    value = length = 0
    while length < len(text) and text[length] in digits:
        value = value * base + int(text[length], 16)
        if value >= _BIG:
            return _BIG, length, False
        length += 1
    return value, length, length > 0


def _dtoi(text: str) -> tuple:
    return _number(text, "0123456789", 10)


def ipv4(text: str, sloppy: bool) -> bool:
    """Whether Go's IPv4 parser reads text; sloppy: the pre-1.17 one k8s.io/utils/net keeps,
    which reads leading zeros as decimal (Go 1.17 and later refuse them)."""
    for index in range(4):
        if index > 0:
            if not text.startswith("."):
                return False
            text = text[1:]
        value, length, ok = _dtoi(text)
        if not ok or value > 0xFF or (not sloppy and length > 1 and text[0] == "0"):
            return False
        text = text[length:]
    return text == ""


def ipv6(text: str, sloppy: bool) -> bool:
    """Whether Go's IPv6 parser reads text: groups of any number of hex digits up to 0xFFFF,
    one `::`, a trailing IPv4 address (read as ipv4 reads it), no zone."""
    ellipsis, index = -1, 0
    if text.startswith("::"):
        ellipsis, text = 0, text[2:]
        if not text:
            return True
    while index < 16:
        value, length, ok = _number(text, "0123456789abcdefABCDEF", 16)
        if not ok or value > 0xFFFF:
            return False
        if length < len(text) and text[length] == ".":
            if (ellipsis < 0 and index != 12) or index + 4 > 16 or not ipv4(text, sloppy):
                return False
            text, index = "", index + 4
            break
        index += 2
        text = text[length:]
        if not text:
            break
        if text[0] != ":" or len(text) == 1:
            return False
        text = text[1:]
        if text[0] == ":":
            if ellipsis >= 0:
                return False
            ellipsis, text = index, text[1:]
            if not text:
                break
    if text:
        return False
    return ellipsis >= 0 if index < 16 else ellipsis < 0


def cidr(text: str) -> bool:
    """k8s.io/utils/net ParseCIDRSloppy: an IPv4 or IPv6 address, '/', a decimal prefix length
    within the family's bits."""
    address, slash, mask = text.partition("/")
    if not slash:
        return False
    bits = 32 if ipv4(address, True) else 128 if ipv6(address, True) else None
    if bits is None:
        return False
    value, length, ok = _dtoi(mask)
    return ok and length == len(mask) and value <= bits


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def date(text: str) -> bool:
    """Go's time.Parse("2006-01-02", text)."""
    match = _DATE.match(text)
    if match is None or not text.isascii():
        return False
    year, month, day = (int(part) for part in match.groups())
    if not 1 <= month <= 12:
        return False
    days = [31, 29 if _leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return 1 <= day <= days


def date_time(text: str) -> bool:
    """strfmt.IsDateTime."""
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not date(parts[0]):
        return False
    match = _TIME.match(parts[1])
    return match is not None and match[1] <= "23" and match[2] <= "59" and match[3] <= "59"


# The formats kube-apiserver validates in CRD schemas (apiextensions' supported formats,
# named as go-openapi normalises them: without dashes). The rest are ignored.
SUPPORTED = frozenset((
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3",
    "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor",
    "byte", "password", "date", "duration", "datetime"))


def supported(name) -> bool:
    """Whether the server validates format name (None: no format)."""
    return isinstance(name, str) and name.replace("-", "") in SUPPORTED


# format (as written in a schema) -> its check. The server also checks the other SUPPORTED
# formats, which no CRD here uses; this server does not (docs/kube-client.md).
CHECKS = {
    "cidr": cidr,
    "ipv4": lambda text: "." in text and (ipv4(text, True) or ipv6(text, True)),
    "ipv6": lambda text: ":" in text and (ipv4(text, False) or ipv6(text, False)),
    "date": date,
    "date-time": date_time,
    "datetime": date_time,
}

# The int64 range of the Go decoder, and the integral floats go-openapi takes for integers.
_INT64 = range(-2**63, 2**63)
_FLOAT_INTEGERS = 2**53 - 1


def is_integer(value) -> bool:
    """Whether kube-openapi takes a decoded JSON value for an integer: an integer that fits in
    int64, or a float with no fraction within ±(2^53 - 1) (so 179.0 is an integer, and
    2^63, which the server decodes as a float, is not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value in _INT64
    return isinstance(value, float) and value.is_integer() and abs(value) <= _FLOAT_INTEGERS


@functools.lru_cache(maxsize=256)
def go_regex(pattern: str) -> re.Pattern:
    """pattern compiled with Go's RE2 meaning where Python's differs: `$` and `\\z` match only
    at the very end (Python's `$` also matches before a final newline), and `\\d`, `\\w`, `\\s`
    are ASCII only."""
    out, in_class, index = [], False, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            pair = pattern[index:index + 2]
            out.append("\\Z" if pair == "\\z" and not in_class else pair)
            index += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append("\\Z" if char == "$" and not in_class else char)
        index += 1
    return re.compile("".join(out), re.ASCII)
