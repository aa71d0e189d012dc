// SPDX-License-Identifier: Apache-2.0

// Command smd-oracle runs a sequence of server-side applies and updates of one custom resource
// through sigs.k8s.io/structured-merge-diff (Debian's
// golang-k8s-sigs-structured-merge-diff-dev), the library kube-apiserver does server-side apply
// with. It is the independent side of e2e/kubeapi/test_oracle_apply.py.
//
// The CRD's openAPIV3Schema is turned into a structured-merge-diff schema here, following the
// rules the API server applies to CRDs: an object with properties is a struct whose fields
// merge one by one (atomic with x-kubernetes-map-type: atomic), additionalProperties gives a
// map, a list is atomic unless x-kubernetes-list-type is set (a set of scalars) or map (keyed by
// x-kubernetes-list-map-keys), and metadata and fields without a schema are deduced.
//
// Input (stdin), one JSON document:
//
//	{"schema": <openAPIV3Schema>,
//	 "steps": [{"manager": "m", "op": "apply"|"update", "force": false, "object": {...}}, ...]}
//
// "apply" applies object as the manager's configuration; "update" replaces the object with it
// (a PUT or a non-apply patch by that manager). Output (stdout): one JSON array with an entry
// per step: {"object": <the object afterwards>} or {"conflict": "<message>"} (the object is
// then unchanged).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"
	"sigs.k8s.io/structured-merge-diff/v4/schema"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

const version = fieldpath.APIVersion("v1")

type node struct {
	Type                 string           `json:"type"`
	Properties           map[string]node  `json:"properties"`
	AdditionalProperties *json.RawMessage `json:"additionalProperties"`
	Items                *node            `json:"items"`
	ListType             string           `json:"x-kubernetes-list-type"`
	ListMapKeys          []string         `json:"x-kubernetes-list-map-keys"`
	MapType              string           `json:"x-kubernetes-map-type"`
	PreserveUnknown      bool             `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString          bool             `json:"x-kubernetes-int-or-string"`
}

type step struct {
	Manager string                 `json:"manager"`
	Op      string                 `json:"op"`
	Force   bool                   `json:"force"`
	Object  map[string]interface{} `json:"object"`
}

type outcome struct {
	Object   interface{} `json:"object,omitempty"`
	Conflict string      `json:"conflict,omitempty"`
}

// sameVersion is the converter of a single-version object.
type sameVersion struct{}

func (sameVersion) Convert(object *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return object, nil
}

func (sameVersion) IsMissingVersionError(error) bool { return false }

func main() {
	var in struct {
		Schema node   `json:"schema"`
		Steps  []step `json:"steps"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("decoding the request: %v", err)
	}
	root := "root"
	s := &schema.Schema{Types: append([]schema.TypeDef{{Name: root, Atom: atom(in.Schema, true)}},
		typed.DeducedParseableType.Schema.Types...)}
	parser := typed.ParseableType{Schema: s, TypeRef: schema.TypeRef{NamedType: &root}}
	updater := merge.Updater{Converter: sameVersion{}}

	live, err := parser.FromUnstructured(map[string]interface{}{})
	if err != nil {
		fail("the empty object: %v", err)
	}
	managers := fieldpath.ManagedFields{}
	out := []outcome{}
	for i, st := range in.Steps {
		object, err := parser.FromUnstructured(st.Object)
		if err != nil {
			fail("step %d: %v", i, err)
		}
		var next *typed.TypedValue
		var nextManagers fieldpath.ManagedFields
		if st.Op == "apply" {
			next, nextManagers, err = updater.Apply(live, object, version, copyManagers(managers), st.Manager, st.Force)
			if err == nil && next == nil {
				next = live // nothing changed
			}
		} else {
			next, nextManagers, err = updater.Update(live, object, version, copyManagers(managers), st.Manager)
		}
		if conflicts, ok := err.(merge.Conflicts); ok {
			out = append(out, outcome{Conflict: conflictText(conflicts)})
			continue
		}
		if err != nil {
			fail("step %d: %v", i, err)
		}
		live, managers = next, nextManagers
		out = append(out, outcome{Object: live.AsValue().Unstructured()})
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("writing the answer: %v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "smd-oracle: "+format+"\n", args...)
	os.Exit(2)
}

func copyManagers(in fieldpath.ManagedFields) fieldpath.ManagedFields {
	out := fieldpath.ManagedFields{}
	for name, set := range in {
		out[name] = set
	}
	return out
}

func conflictText(conflicts merge.Conflicts) string {
	texts := []string{}
	for _, c := range conflicts {
		texts = append(texts, c.Manager+" "+c.Path.String())
	}
	sort.Strings(texts)
	return fmt.Sprint(texts)
}

// deducedRef is the library's deduced type: maps merge key by key, lists are atomic.
func deducedRef() schema.TypeRef {
	name := "__untyped_deduced_"
	return schema.TypeRef{NamedType: &name}
}

// atom turns one schema node into a structured-merge-diff type; root gives metadata its
// deduced type.
func atom(n node, root bool) schema.Atom {
	if n.IntOrString {
		untyped := schema.Scalar("untyped")
		return schema.Atom{Scalar: &untyped}
	}
	switch n.Type {
	case "object":
		m := &schema.Map{ElementRelationship: schema.Separable}
		if n.MapType == "atomic" {
			m.ElementRelationship = schema.Atomic
		}
		names := make([]string, 0, len(n.Properties))
		for name := range n.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ref := schema.TypeRef{Inlined: atom(n.Properties[name], false)}
			if root && name == "metadata" {
				ref = deducedRef()
			}
			m.Fields = append(m.Fields, schema.StructField{Name: name, Type: ref})
		}
		switch {
		case n.AdditionalProperties != nil:
			var sub node
			if json.Unmarshal(*n.AdditionalProperties, &sub) == nil && sub.Type != "" {
				m.ElementType = schema.TypeRef{Inlined: atom(sub, false)}
			} else {
				m.ElementType = deducedRef()
			}
		case n.PreserveUnknown || len(n.Properties) == 0:
			m.ElementType = deducedRef()
		}
		return schema.Atom{Map: m}
	case "array":
		l := &schema.List{ElementRelationship: schema.Atomic, ElementType: deducedRef()}
		if n.Items != nil {
			l.ElementType = schema.TypeRef{Inlined: atom(*n.Items, false)}
		}
		switch n.ListType {
		case "set":
			l.ElementRelationship = schema.Associative
		case "map":
			l.ElementRelationship = schema.Associative
			l.Keys = n.ListMapKeys
		}
		return schema.Atom{List: l}
	case "integer", "number":
		return schema.Atom{Scalar: ptr(schema.Numeric)}
	case "boolean":
		return schema.Atom{Scalar: ptr(schema.Boolean)}
	case "string":
		return schema.Atom{Scalar: ptr(schema.String)}
	}
	return deducedAtom()
}

func deducedAtom() schema.Atom {
	for _, t := range typed.DeducedParseableType.Schema.Types {
		if t.Name == "__untyped_deduced_" {
			return t.Atom
		}
	}
	panic("structured-merge-diff has no deduced type")
}

func ptr(s schema.Scalar) *schema.Scalar { return &s }
