// SPDX-License-Identifier: Apache-2.0

// Command openapi-oracle validates JSON objects against CRD schemas with Kubernetes' own OpenAPI
// validator (k8s.io/kube-openapi/pkg/validation), the library kube-apiserver validates custom
// resources with. It is the independent side of e2e/kubeapi/test_oracle_openapi.py.
//
// Debian packages kube-openapi but not apiextensions-apiserver, so the CRD's openAPIV3Schema
// (JSON-compatible with spec.Schema) is decoded straight into a spec.Schema and given the
// changes the API server makes when it builds its validator: x-kubernetes-int-or-string becomes
// the type list [integer, string], and a format the server does not support for CRDs is
// dropped (the server ignores it).
//
// Input (stdin), one JSON document:
//
//	{"schemas": {"<key>": <openAPIV3Schema>, ...},
//	 "cases": [{"schema": "<key>", "object": <object>}, ...]}
//
// Output (stdout), one JSON array with one entry per case, in order:
//
//	[{"errors": ["<field>: <message>", ...], "unknown": ["<field>", ...]}, ...]
//
// errors are the validator's failures (none: the object is valid). unknown are the fields that
// structural pruning drops, found by validating again against the schema with
// additionalProperties false on every object that neither declares additionalProperties nor
// preserves unknown fields (the root's apiVersion, kind and metadata are always kept).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// crdFormats are the formats kube-apiserver validates in CRD schemas, with go-openapi's name
// normalisation (dashes removed); any other format is ignored by the server.
var crdFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true, "ipv4": true,
	"ipv6": true, "cidr": true, "mac": true, "uuid": true, "uuid3": true, "uuid4": true,
	"uuid5": true, "isbn": true, "isbn10": true, "isbn13": true, "creditcard": true,
	"ssn": true, "hexcolor": true, "rgbcolor": true, "byte": true, "password": true,
	"date": true, "duration": true, "datetime": true,
}

type request struct {
	Schemas map[string]json.RawMessage `json:"schemas"`
	Cases   []struct {
		Schema string          `json:"schema"`
		Object json.RawMessage `json:"object"`
	} `json:"cases"`
}

type verdict struct {
	Errors  []string `json:"errors"`
	Unknown []string `json:"unknown"`
}

type validators struct {
	strict *validate.SchemaValidator // the server's validator
	closed *validate.SchemaValidator // the same with unknown fields refused
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fail("decoding the request: %v", err)
	}
	compiled := map[string]validators{}
	for key, raw := range req.Schemas {
		compiled[key] = validators{strict: newValidator(raw, false), closed: newValidator(raw, true)}
	}
	out := make([]verdict, 0, len(req.Cases))
	for i, c := range req.Cases {
		v, ok := compiled[c.Schema]
		if !ok {
			fail("case %d: no schema %q", i, c.Schema)
		}
		object, err := decodeLikeTheServer(c.Object)
		if err != nil {
			fail("case %d: %v", i, err)
		}
		out = append(out, verdict{
			Errors:  messages(v.strict.Validate(object), false),
			Unknown: messages(v.closed.Validate(withoutRootMeta(object)), true),
		})
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("writing the answer: %v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "openapi-oracle: "+format+"\n", args...)
	os.Exit(2)
}

// newValidator builds the validator of one openAPIV3Schema; closed refuses unknown fields.
func newValidator(raw json.RawMessage, closed bool) *validate.SchemaValidator {
	schema := &spec.Schema{}
	if err := json.Unmarshal(raw, schema); err != nil {
		fail("decoding a schema: %v", err)
	}
	asTheServerBuildsIt(schema, closed)
	return validate.NewSchemaValidator(schema, nil, "", strfmt.Default)
}

// asTheServerBuildsIt applies, to every node of schema, the changes kube-apiserver makes when
// it turns a CRD schema into its validator; closed also sets additionalProperties false where
// structural pruning would drop unknown fields.
func asTheServerBuildsIt(schema *spec.Schema, closed bool) {
	if intOrString, _ := schema.Extensions.GetBool("x-kubernetes-int-or-string"); intOrString {
		schema.Type = spec.StringOrArray{"integer", "string"}
	}
	if !crdFormats[strings.ReplaceAll(schema.Format, "-", "")] {
		schema.Format = ""
	}
	preserve, _ := schema.Extensions.GetBool("x-kubernetes-preserve-unknown-fields")
	if closed && schema.AdditionalProperties == nil && !preserve {
		schema.AdditionalProperties = &spec.SchemaOrBool{Allows: false}
	}
	if closed { // property counts would end the object's check before its fields are seen
		schema.MinProperties, schema.MaxProperties = nil, nil
	}
	for name, sub := range schema.Properties {
		asTheServerBuildsIt(&sub, closed)
		schema.Properties[name] = sub
	}
	if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
		asTheServerBuildsIt(schema.AdditionalProperties.Schema, closed)
	}
	if schema.Items != nil && schema.Items.Schema != nil {
		asTheServerBuildsIt(schema.Items.Schema, closed)
	}
	for _, list := range [][]spec.Schema{schema.AllOf, schema.AnyOf, schema.OneOf} {
		for i := range list {
			asTheServerBuildsIt(&list[i], closed)
		}
	}
}

// decodeLikeTheServer decodes JSON as kube-apiserver decodes a custom resource: a number
// without fraction or exponent that fits becomes int64, any other number float64.
func decodeLikeTheServer(raw json.RawMessage) (interface{}, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	return convertNumbers(value), nil
}

func convertNumbers(value interface{}) interface{} {
	switch v := value.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]interface{}:
		for key, sub := range v {
			v[key] = convertNumbers(sub)
		}
	case []interface{}:
		for i, sub := range v {
			v[i] = convertNumbers(sub)
		}
	}
	return value
}

// withoutRootMeta drops the root's metadata, which the server prunes by its own rules.
func withoutRootMeta(object interface{}) interface{} {
	root, ok := object.(map[string]interface{})
	if !ok {
		return object
	}
	copied := map[string]interface{}{}
	for key, value := range root {
		if key != "metadata" {
			copied[key] = value
		}
	}
	return copied
}

// messages lists a result's failures; unknownOnly keeps only the refused unknown fields, as
// their paths.
func messages(result *validate.Result, unknownOnly bool) []string {
	out := []string{}
	for _, err := range result.Errors {
		failure, ok := err.(*errors.Validation)
		if !unknownOnly {
			out = append(out, err.Error())
			continue
		}
		if ok && failure.Code() == errors.UnallowedPropertyCode {
			out = append(out, unknownPath(failure))
		}
	}
	sort.Strings(out)
	return out
}

// unknownPath is the field path of an unallowed-property failure: the object's path and the
// property's name.
func unknownPath(failure *errors.Validation) string {
	name := fmt.Sprint(failure.Value)
	parent := strings.TrimPrefix(failure.Name, ".")
	if parent == "" {
		return name
	}
	return parent + "." + name
}
