# SPDX-License-Identifier: Apache-2.0
"""The three patch algorithms of kubeapi.patch, table-driven: JSON merge patch (RFC 7386),
JSON patch (RFC 6902) and strategic merge patch as this server implements it (README.md)."""

from __future__ import annotations

import copy

import pytest

from kubeapi.errors import ApiError
from kubeapi.patch import PatchError, json_patch, merge_patch, strategic_merge

# RFC 7386 appendix A, plus nested deletion and null-valued targets.
MERGE_CASES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ({"metadata": {"labels": {"x": "1", "y": "2"}}}, {"metadata": {"labels": {"x": None}}},
     {"metadata": {"labels": {"y": "2"}}}),
]


@pytest.mark.parametrize("target,patch,expected", MERGE_CASES)
def test_merge_patch(target, patch, expected):
    before = copy.deepcopy((target, patch))
    assert merge_patch(target, patch) == expected
    assert (target, patch) == before  # inputs are not changed


def test_merge_patch_result_shares_nothing_with_the_patch():
    patch = {"spec": {"list": [{"a": 1}]}}
    result = merge_patch({}, patch)
    result["spec"]["list"][0]["a"] = 2
    assert patch == {"spec": {"list": [{"a": 1}]}}


DOC = {"foo": "bar", "list": [1, 2, 3], "obj": {"a/b": 1, "m~n": 2, "inner": {"x": 1}}}

JSON_PATCH_CASES = [
    ("add member", [{"op": "add", "path": "/baz", "value": "qux"}],
     dict(DOC, baz="qux")),
    ("add replaces an existing member", [{"op": "add", "path": "/foo", "value": 1}],
     dict(DOC, foo=1)),
    ("add inserts into an array", [{"op": "add", "path": "/list/1", "value": 9}],
     dict(DOC, list=[1, 9, 2, 3])),
    ("add appends with -", [{"op": "add", "path": "/list/-", "value": 4}],
     dict(DOC, list=[1, 2, 3, 4])),
    ("add at the end index", [{"op": "add", "path": "/list/3", "value": 4}],
     dict(DOC, list=[1, 2, 3, 4])),
    ("add with an empty path replaces the document",
     [{"op": "add", "path": "", "value": {"x": 1}}], {"x": 1}),
    ("remove member", [{"op": "remove", "path": "/foo"}],
     {k: v for k, v in DOC.items() if k != "foo"}),
    ("remove array element", [{"op": "remove", "path": "/list/0"}], dict(DOC, list=[2, 3])),
    ("replace", [{"op": "replace", "path": "/obj/inner/x", "value": 5}],
     dict(DOC, obj=dict(DOC["obj"], inner={"x": 5}))),
    ("escaped pointers ~1 and ~0",
     [{"op": "replace", "path": "/obj/a~1b", "value": 7},
      {"op": "remove", "path": "/obj/m~0n"}],
     dict(DOC, obj={"a/b": 7, "inner": {"x": 1}})),
    ("move", [{"op": "move", "from": "/foo", "path": "/moved"}],
     dict({k: v for k, v in DOC.items() if k != "foo"}, moved="bar")),
    ("copy", [{"op": "copy", "from": "/obj/inner", "path": "/copied"}],
     dict(DOC, copied={"x": 1})),
    ("test that passes, then a change", [{"op": "test", "path": "/list", "value": [1, 2, 3]},
                                         {"op": "add", "path": "/t", "value": True}],
     dict(DOC, t=True)),
    ("operations apply in order", [{"op": "add", "path": "/n", "value": {}},
                                   {"op": "add", "path": "/n/m", "value": 1}],
     dict(DOC, n={"m": 1})),
]


@pytest.mark.parametrize("name,operations,expected", JSON_PATCH_CASES,
                         ids=[c[0] for c in JSON_PATCH_CASES])
def test_json_patch(name, operations, expected):
    before = copy.deepcopy(DOC)
    assert json_patch(DOC, operations) == expected
    assert DOC == before  # applied to a copy


JSON_PATCH_ERRORS = [
    ("test that fails", [{"op": "test", "path": "/foo", "value": "nope"}],
     "testing value /foo failed"),
    ("path of a missing parent", [{"op": "add", "path": "/missing/x", "value": 1}],
     "path not found: /missing/x"),
    ("remove of a missing member", [{"op": "remove", "path": "/missing"}],
     "path not found: /missing"),
    ("replace of a missing member", [{"op": "replace", "path": "/missing", "value": 1}],
     "path not found: /missing"),
    ("index out of bounds", [{"op": "add", "path": "/list/5", "value": 1}],
     "array index out of bounds: 5"),
    ("index with a leading zero", [{"op": "remove", "path": "/list/01"}],
     "invalid array index: 01"),
    ("pointer without a leading slash", [{"op": "add", "path": "foo", "value": 1}],
     "invalid JSON pointer"),
    ("add without a value", [{"op": "add", "path": "/x"}], "operation add needs a value"),
    ("unknown operation", [{"op": "frobnicate", "path": "/x"}], "Unexpected kind: frobnicate"),
    ("move into its own child", [{"op": "move", "from": "/obj", "path": "/obj/inner/y"}],
     "cannot move /obj into its own child"),
    ("remove the whole document", [{"op": "remove", "path": ""}],
     "cannot remove the whole document"),
    ("an operation that is not an object", ["add"], "invalid operation"),
    ("all or nothing: a later failure", [{"op": "add", "path": "/ok", "value": 1},
                                         {"op": "remove", "path": "/missing"}],
     "path not found: /missing"),
]


@pytest.mark.parametrize("name,operations,message", JSON_PATCH_ERRORS,
                         ids=[c[0] for c in JSON_PATCH_ERRORS])
def test_json_patch_errors(name, operations, message):
    before = copy.deepcopy(DOC)
    with pytest.raises(PatchError, match=message.replace("(", r"\(")):
        json_patch(DOC, operations)
    assert DOC == before


def test_json_patch_that_is_not_a_list_is_a_bad_request():
    with pytest.raises(ApiError) as err:
        json_patch(DOC, {"op": "add"})
    assert err.value.code == 400 and "jsonpatch.Patch" in err.value.message


SVC = {"metadata": {"name": "s", "labels": {"a": "1"}, "finalizers": ["x"]},
       "spec": {"type": "ClusterIP", "selector": {"app": "a"},
                "ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}]},
       "status": {"conditions": [{"type": "Ready", "status": "False"}]}}

STRATEGIC_CASES = [
    ("maps merge recursively", "Service", {"metadata": {"labels": {"b": "2"}}},
     {"metadata": dict(SVC["metadata"], labels={"a": "1", "b": "2"})}),
    ("null deletes", "Service", {"spec": {"selector": None}},
     {"spec": {k: v for k, v in SVC["spec"].items() if k != "selector"}}),
    ("Service ports merge by port", "Service",
     {"spec": {"ports": [{"port": 443, "name": "tls"}, {"port": 8080}]}},
     {"spec": dict(SVC["spec"], ports=[{"port": 80, "name": "http"},
                                       {"port": 443, "name": "tls"}, {"port": 8080}])}),
    ("$patch: delete removes one keyed element", "Service",
     {"spec": {"ports": [{"port": 80, "$patch": "delete"}]}},
     {"spec": dict(SVC["spec"], ports=[{"port": 443, "name": "https"}])}),
    ("$patch: replace on a list element replaces the list", "Service",
     {"spec": {"ports": [{"$patch": "replace"}, {"port": 1}]}},
     {"spec": dict(SVC["spec"], ports=[{"port": 1}])}),
    ("$patch: replace on a map replaces the map", "Service",
     {"spec": {"$patch": "replace", "type": "NodePort"}}, {"spec": {"type": "NodePort"}}),
    ("$patch: delete on a map removes it", "Service", {"spec": {"$patch": "delete"}},
     {"spec": None}),
    ("conditions merge by type for any kind", "Widget",
     {"status": {"conditions": [{"type": "Ready", "status": "True"},
                                {"type": "Synced", "status": "True"}]}},
     {"status": {"conditions": [{"type": "Ready", "status": "True"},
                                {"type": "Synced", "status": "True"}]}}),
    ("finalizers merge as a set", "Service", {"metadata": {"finalizers": ["y", "x"]}},
     {"metadata": dict(SVC["metadata"], finalizers=["x", "y"])}),
    ("$deleteFromPrimitiveList", "Service",
     {"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}},
     {"metadata": dict(SVC["metadata"], finalizers=[])}),
    ("$setElementOrder names the merge key and the order", "Service",
     {"spec": {"$setElementOrder/ports": [{"port": 443}, {"port": 80}],
               "ports": [{"port": 80, "name": "web"}]}},
     {"spec": dict(SVC["spec"], ports=[{"port": 443, "name": "https"},
                                       {"port": 80, "name": "web"}])}),
    ("$setElementOrder alone reorders", "Service",
     {"spec": {"$setElementOrder/ports": [{"port": 443}, {"port": 80}]}},
     {"spec": dict(SVC["spec"], ports=[{"port": 443, "name": "https"},
                                       {"port": 80, "name": "http"}])}),
    ("$retainKeys drops the others", "Service",
     {"spec": {"$retainKeys": ["type", "ports"], "type": "LoadBalancer"}},
     {"spec": {"type": "LoadBalancer", "ports": SVC["spec"]["ports"]}}),
    ("lists without a merge key are replaced", "Service",
     {"spec": {"externalIPs": ["1.2.3.4"]}, "metadata": {"labels": {"a": None}}},
     {"spec": dict(SVC["spec"], externalIPs=["1.2.3.4"]),
      "metadata": dict(SVC["metadata"], labels={})}),
]


@pytest.mark.parametrize("name,kind,patch,changed", STRATEGIC_CASES,
                         ids=[c[0] for c in STRATEGIC_CASES])
def test_strategic_merge(name, kind, patch, changed):
    before = copy.deepcopy(SVC)
    expected = dict(SVC, **changed)
    expected = {k: v for k, v in expected.items() if v is not None}
    assert strategic_merge(SVC, patch, kind) == expected
    assert SVC == before  # the original is not changed


def test_strategic_merge_strips_directives_from_new_elements():
    result = strategic_merge({}, {"spec": {"ports": [{"port": 1, "$patch": "merge"}]}},
                             "Service")
    assert result == {"spec": {"ports": [{"port": 1}]}}


def test_strategic_merge_rejects_a_scalar_in_a_keyed_list():
    with pytest.raises(PatchError, match="merges by key port"):
        strategic_merge(SVC, {"spec": {"$setElementOrder/ports": [{"port": 80}],
                                       "ports": [80]}}, "Service")
