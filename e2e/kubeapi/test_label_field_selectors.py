# SPDX-License-Identifier: Apache-2.0
"""Label and field selector parsing and matching (kubeapi.selectors), table-driven."""

from __future__ import annotations

import pytest

from kubeapi.errors import ApiError
from kubeapi.registry import BUILTIN_RESOURCES, Registry, crd_manifest, resources_from_crd
from kubeapi.selectors import (ObjectFilter, Requirement, parse_field_selector,
                               parse_label_selector)

R = Requirement

LABEL_SELECTORS = [
    ("", ()),
    ("   ", ()),
    ("a=b", (R("a", "=", ("b",)),)),
    ("a==b", (R("a", "=", ("b",)),)),
    ("a!=b", (R("a", "!=", ("b",)),)),
    ("a=", (R("a", "=", ("",)),)),
    (" a = b ", (R("a", "=", ("b",)),)),
    ("a in (x, y)", (R("a", "in", ("x", "y")),)),
    ("a notin (x)", (R("a", "notin", ("x",)),)),
    ("a", (R("a", "exists"),)),
    ("!a", (R("a", "!"),)),
    ("a>1", (R("a", "gt", ("1",)),)),
    ("a<2", (R("a", "lt", ("2",)),)),
    ("example.com/a-b_c.d=v", (R("example.com/a-b_c.d", "=", ("v",)),)),
    ("a=b,c in (d,e),!f", (R("a", "=", ("b",)), R("c", "in", ("d", "e")), R("f", "!"))),
]


@pytest.mark.parametrize("text,expected", LABEL_SELECTORS)
def test_parse_label_selector(text, expected):
    assert parse_label_selector(text) == expected


LABEL_SELECTOR_ERRORS = [
    ("a in ()", "for 'in', 'notin' operators, values set can't be empty: a in ()"),
    ("a>x", 'for "gt", "lt" operators, the value must be an integer: a>x'),
    ("-a=b", 'invalid label key "-a"'),
    ("Example.com/a=b", 'invalid label key "Example.com/a"'),
    ("a" * 64 + "=b", "invalid label key"),
    ("a=" + "v" * 64, "invalid label value"),
    ("a=-v", 'invalid label value "-v"'),
    ("a=b c", "cannot parse 'a=b c'"),
    ("a in (x", "cannot parse 'a in (x'"),
]


@pytest.mark.parametrize("text,message", LABEL_SELECTOR_ERRORS)
def test_label_selector_errors_are_bad_requests(text, message):
    with pytest.raises(ApiError) as err:
        parse_label_selector(text)
    assert err.value.code == 400 and err.value.reason == "BadRequest"
    assert err.value.message.startswith("unable to parse requirement: ")
    assert message in err.value.message


LABELS = {"app": "web", "tier": "1", "zone": "a"}
MATCHES = [
    ("app=web", True), ("app=db", False), ("app!=db", True), ("missing!=x", True),
    ("app in (db, web)", True), ("app notin (web)", False), ("missing notin (x)", True),
    ("missing in (x)", False), ("app", True), ("missing", False), ("!missing", True),
    ("!app", False), ("tier>0", True), ("tier>1", False), ("tier<2", True), ("app>0", False),
    ("missing<5", False), ("app=web,zone=a", True), ("app=web,zone=b", False),
]


@pytest.mark.parametrize("text,expected", MATCHES)
def test_label_selector_matching(text, expected):
    filt = ObjectFilter("", parse_label_selector(text), ())
    assert filt.matches({"metadata": {"name": "x", "labels": LABELS}}) is expected


REGISTRY = Registry(BUILTIN_RESOURCES)
SERVICES = REGISTRY.lookup("", "v1", "services")
WIDGETS = resources_from_crd(crd_manifest("example.com", "widgets", "Widget"))[0]

FIELD_SELECTORS = [
    (SERVICES, "", ()),
    (SERVICES, "metadata.name=x", (("metadata.name", True, "x"),)),
    (SERVICES, "metadata.name==x", (("metadata.name", True, "x"),)),
    (SERVICES, "metadata.namespace!=kube-system", (("metadata.namespace", False, "kube-system"),)),
    (SERVICES, "spec.type=LoadBalancer, metadata.name = y",
     (("spec.type", True, "LoadBalancer"), ("metadata.name", True, "y"))),
    (WIDGETS, "metadata.name=w", (("metadata.name", True, "w"),)),
]


@pytest.mark.parametrize("res,text,expected", FIELD_SELECTORS)
def test_parse_field_selector(res, text, expected):
    assert parse_field_selector(text, res) == expected


FIELD_SELECTOR_ERRORS = [
    (SERVICES, "spec.foo=x", "field label not supported: spec.foo"),
    (WIDGETS, "spec.foo=x",
     '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    (SERVICES, "metadata.name", "invalid selector: 'metadata.name'; can't understand"),
    (SERVICES, "metadata.name=b,junk", "can't understand 'junk'"),
]


@pytest.mark.parametrize("res,text,message", FIELD_SELECTOR_ERRORS)
def test_field_selector_errors_are_bad_requests(res, text, message):
    with pytest.raises(ApiError) as err:
        parse_field_selector(text, res)
    assert err.value.code == 400 and message in err.value.message


SVC = {"metadata": {"name": "s", "namespace": "ns", "labels": {"app": "web"}},
       "spec": {"type": "LoadBalancer", "allocateLoadBalancerNodePorts": False}}
FILTERS = [
    (ObjectFilter("ns"), True),
    (ObjectFilter("other"), False),
    (ObjectFilter("", (), (("spec.type", True, "LoadBalancer"),)), True),
    (ObjectFilter("", (), (("spec.type", False, "LoadBalancer"),)), False),
    (ObjectFilter("", (), (("spec.clusterIP", True, ""),)), True),  # absent compares as ""
    (ObjectFilter("", (), (("spec.allocateLoadBalancerNodePorts", True, "false"),)), True),
    (ObjectFilter("ns", parse_label_selector("app=web"), (("metadata.name", True, "s"),)),
     True),
    (ObjectFilter("ns", parse_label_selector("app=web"), (("metadata.name", True, "t"),)),
     False),
]


@pytest.mark.parametrize("filt,expected", FILTERS)
def test_object_filter(filt, expected):
    assert filt.matches(SVC) is expected
