# SPDX-License-Identifier: Apache-2.0
"""Where Python and Go read a custom resource differently, the test server follows Go, as
kube-apiserver's validator (k8s.io/kube-openapi) does. test_oracle_openapi.py compares this
with the Go library itself; these tables keep it tested where the library is not installed."""

from __future__ import annotations

import pytest

from conftest import ApiClient
from kubeapi import formats

PEERS = "/apis/metallb.io/v1beta2/namespaces/metallb-system/bgppeers"


@pytest.mark.parametrize("text, valid", [
    # k8s.io/utils/net ParseCIDRSloppy (Go's pre-1.17 net.ParseCIDR)
    ("10.0.0.0/24", True), ("10.0.0.1/24", True), ("010.0.0.0/8", True), ("10.0.0.0/08", True),
    ("fd00::/64", True), ("fd00:00001::/64", True), ("::010.0.0.1/128", True),
    ("10.0.0.0", False), ("10.0.0.0/255.0.0.0", False), ("10.0.0.0/33", False),
    ("fe80::1%eth0/64", False), ("10.0.0.0/24\n", False), ("1.2.3.4.5/32", False),
])
def test_cidr_is_parse_cidr_sloppy(text, valid):
    assert formats.cidr(text) is valid


@pytest.mark.parametrize("text, valid", [
    # strfmt.IsDateTime: an RFC 3339 date, a T, then its time pattern (any character before
    # the fraction)
    ("2024-01-02T03:04:05Z", True), ("2024-01-02t03:04:05z", True),
    ("2024-01-02T03:04:05+02:00", True), ("2024-01-02T03:04:05x9Z", True),
    ("2024-01-02T03:04:05", False), ("2024-01-02 03:04:05Z", False), ("2024-01-02", False),
    ("2024-02-30T00:00:00Z", False), ("2024-01-02T24:00:00Z", False),
    ("2024-01-02T03:04:05-0200", False),
])
def test_date_time_is_strfmt_is_date_time(text, valid):
    assert formats.date_time(text) is valid


@pytest.mark.parametrize("value, integer", [
    # typeValidator with swag.IsFloat64AJSONInteger; numbers past int64 decode as float64
    (179, True), (179.0, True), (1e3, True), (179.5, False), (2**63 - 1, True), (2**63, False),
    (float(2**53), False), (True, False),
])
def test_integers_are_kube_openapis(value, integer):
    assert formats.is_integer(value) is integer


@pytest.mark.parametrize("pattern, text, matches", [
    # Go's regexp: $ is the end of the text, \d is ASCII
    (r"^[a-z]+$", "ready", True), (r"^[a-z]+$", "ready\n", False),
    (r"^\d+$", "123", True), (r"^\d+$", "١٢٣", False), (r"^[$]+$", "$$", True),
])
def test_patterns_are_go_regexps(pattern, text, matches):
    assert bool(formats.go_regex(pattern).search(text)) is matches


def test_a_whole_float_is_an_integer_and_stored_as_one(client: ApiClient):
    peer = {"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
            "metadata": {"name": "p", "namespace": "metallb-system"},
            "spec": {"myASN": 64500.0, "peerASN": 64501, "peerAddress": "10.0.0.1",
                     "peerPort": 179.0}}
    created = client.post(PEERS, peer)
    assert created.status == 201, created.body
    stored = client.get(f"{PEERS}/p").body["spec"]
    assert (stored["myASN"], stored["peerPort"]) == (64500, 179)
    assert isinstance(stored["peerPort"], int)
    refused = client.post(PEERS, dict(peer, metadata={"name": "q", "namespace": "metallb-system"},
                                      spec=dict(peer["spec"], peerPort=179.5)))
    assert refused.status == 422, refused.body
