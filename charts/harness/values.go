// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v2"
)

// values is a tree of YAML values with string keys, as Helm hands .Values to templates.
type values = map[string]interface{}

// normalize turns yaml.v2's map[interface{}]interface{} into map[string]interface{} throughout,
// and numbers into float64: Helm reads values files through JSON, so a template sees 3600000 from
// a file as a float (printed 3.6e+06 unless converted with int64) and from --set as an int64.
func normalize(v interface{}) interface{} {
	switch t := v.(type) {
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	case map[interface{}]interface{}:
		out := values{}
		for k, e := range t {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case values:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case []interface{}:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	}
	return v
}

func readYAMLFile(path string) (values, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw interface{}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if raw == nil {
		return values{}, nil
	}
	m, ok := normalize(raw).(values)
	if !ok {
		return nil, fmt.Errorf("%s: the top level is not a mapping", path)
	}
	return m, nil
}

// mergeInto merges src over dst as Helm merges values files: maps merge key by key, anything
// else replaces, and a null deletes the key.
func mergeInto(dst, src values) {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		sm, srcIsMap := v.(values)
		dm, dstIsMap := dst[k].(values)
		if srcIsMap && dstIsMap {
			mergeInto(dm, sm)
			continue
		}
		dst[k] = v
	}
}

// parseScalar types a --set value as Helm's strvals does for the forms the tests use.
func parseScalar(s string) interface{} {
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && (s == "0" || !strings.HasPrefix(s, "0")) {
		return n
	}
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		list := []interface{}{}
		for _, e := range strings.Split(s[1:len(s)-1], ",") {
			if e != "" {
				list = append(list, parseScalar(e))
			}
		}
		return list
	}
	return s
}

// splitAssignments splits "a=1,b={x,y}" at the commas outside braces, as Helm's --set does.
func splitAssignments(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// applySet applies one path=value override.
func applySet(root values, expr string) error {
	eq := strings.Index(expr, "=")
	if eq <= 0 {
		return fmt.Errorf("--set %q: want path=value", expr)
	}
	path := strings.Split(expr[:eq], ".")
	node := root
	for _, key := range path[:len(path)-1] {
		next, ok := node[key].(values)
		if !ok {
			next = values{}
			node[key] = next
		}
		node = next
	}
	last := path[len(path)-1]
	if v := parseScalar(expr[eq+1:]); v != nil {
		node[last] = v
	} else {
		delete(node, last)
	}
	return nil
}

func loadValues(chartDir string, files, sets []string) (values, error) {
	root, err := readYAMLFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		over, err := readYAMLFile(f)
		if err != nil {
			return nil, err
		}
		mergeInto(root, over)
	}
	for _, s := range sets {
		for _, one := range splitAssignments(s) {
			if err := applySet(root, one); err != nil {
				return nil, err
			}
		}
	}
	return root, nil
}

// toYAML renders v as Helm's toYaml does: sorted keys, two-space indent, no trailing newline.
func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) values {
	var raw interface{}
	if err := yaml.Unmarshal([]byte(s), &raw); err != nil {
		return values{"Error": err.Error()}
	}
	m, _ := normalize(raw).(values)
	if m == nil {
		m = values{}
	}
	return m
}

func toJSON(v interface{}) (string, error) {
	data, err := json.Marshal(v)
	return string(data), err
}
