// SPDX-License-Identifier: Apache-2.0

// Command chart-render renders a Helm chart's templates the way `helm template` does, for tests,
// from Debian's Go packages alone. It is a harness, not Helm: it implements the parts of Helm's
// engine the Ingot chart uses (text/template with sprig, include, tpl, required, toYaml, toJson,
// fromYaml, lookup, .Values, .Release, .Chart, .Capabilities, .Template) and nothing more.
// lookup finds nothing, as under helm template, unless --lookup files give it the objects a
// cluster holds (one object per file), as an install against that cluster would see them.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var valueFiles, sets, lookups multiFlag
	release := flag.String("release", "metallb", "release name (.Release.Name; MetalLB's documented one)")
	namespace := flag.String("namespace", "metallb-system", "release namespace (.Release.Namespace)")
	kubeVersion := flag.String("kube-version", "v1.29.0", "Kubernetes version (.Capabilities.KubeVersion)")
	includeCRDs := flag.Bool("include-crds", false, "print the chart's crds/ files before the templates")
	printValues := flag.Bool("print-values", false, "print the merged values as JSON instead of rendering")
	flag.Var(&valueFiles, "f", "values file merged over values.yaml (repeatable)")
	flag.Var(&sets, "set", "path=value override, e.g. speaker.logLevel=debug (repeatable)")
	flag.Var(&lookups, "lookup", "YAML file of one object that lookup finds, as in a cluster (repeatable)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: chart-render [flags] CHART_DIR\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	chartDir := flag.Arg(0)
	values, err := loadValues(chartDir, valueFiles, sets)
	if err != nil {
		fail(err)
	}
	if *printValues {
		out, err := toJSON(values)
		if err != nil {
			fail(err)
		}
		fmt.Println(out)
		return
	}
	meta, err := loadChart(chartDir)
	if err != nil {
		fail(err)
	}
	top := renderContext{
		Values:       values,
		Chart:        meta,
		Release:      releaseInfo(*release, *namespace),
		Capabilities: capabilities(*kubeVersion),
	}
	var cluster []map[string]interface{}
	for _, path := range lookups {
		obj, err := readYAMLFile(path)
		if err != nil {
			fail(err)
		}
		cluster = append(cluster, obj)
	}
	out, err := renderChart(chartDir, top, *includeCRDs, cluster)
	if err != nil {
		fail(err)
	}
	fmt.Print(out)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "chart-render: %v\n", err)
	os.Exit(1)
}
