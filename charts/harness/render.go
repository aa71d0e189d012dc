// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
)

// chartMeta is .Chart: the Chart.yaml fields templates read, named as Helm names them.
type chartMeta struct {
	Name, Version, AppVersion, Description, Type, KubeVersion string
}

type release struct {
	Name, Namespace, Service string
	Revision                 int
	IsInstall, IsUpgrade     bool
}

type kubeVersion struct{ Version, Major, Minor, GitVersion string }

type apiVersions []string

// Has reports whether the group/version (or group/version/Kind) is known, as Helm's does.
func (a apiVersions) Has(v string) bool {
	for _, e := range a {
		if e == v {
			return true
		}
	}
	return false
}

type caps struct {
	KubeVersion kubeVersion
	APIVersions apiVersions
}

type renderContext struct {
	Values       values
	Chart        chartMeta
	Release      release
	Capabilities caps
	Template     map[string]string
}

func releaseInfo(name, namespace string) release {
	return release{Name: name, Namespace: namespace, Service: "Helm", Revision: 1, IsInstall: true}
}

func capabilities(version string) caps {
	v := strings.TrimPrefix(version, "v")
	parts := strings.SplitN(v, ".", 3)
	minor := ""
	if len(parts) > 1 {
		minor = parts[1]
	}
	return caps{
		KubeVersion: kubeVersion{Version: "v" + v, Major: parts[0], Minor: minor, GitVersion: "v" + v},
		APIVersions: apiVersions{"v1", "apps/v1", "rbac.authorization.k8s.io/v1",
			"apiextensions.k8s.io/v1", "admissionregistration.k8s.io/v1", "discovery.k8s.io/v1",
			"policy/v1", "networking.k8s.io/v1"},
	}
}

func loadChart(dir string) (chartMeta, error) {
	m, err := readYAMLFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return chartMeta{}, err
	}
	s := func(k string) string {
		if v, ok := m[k]; ok {
			return fmt.Sprint(v)
		}
		return ""
	}
	return chartMeta{Name: s("name"), Version: s("version"), AppVersion: s("appVersion"),
		Description: s("description"), Type: s("type"), KubeVersion: s("kubeVersion")}, nil
}

// lookupIn is Helm's lookup over objects, the cluster as an install sees it: the object with that
// apiVersion, kind, namespace ("" for cluster-scoped) and name, else an empty map. With no
// objects it finds nothing, as under helm template. Listing (an empty name) is not supported and
// finds nothing.
func lookupIn(objects []values) func(string, string, string, string) values {
	return func(apiVersion, kind, namespace, name string) values {
		for _, o := range objects {
			meta, _ := o["metadata"].(values)
			if meta == nil || name == "" {
				continue
			}
			ns, _ := meta["namespace"].(string)
			if o["apiVersion"] == apiVersion && o["kind"] == kind && meta["name"] == name &&
				ns == namespace {
				return o
			}
		}
		return values{}
	}
}

// funcMap is sprig's text functions plus Helm's own; include and tpl close over the template set,
// lookup finds the objects in cluster.
func funcMap(set **template.Template, cluster []values) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["toJson"] = func(v interface{}) string { s, _ := toJSON(v); return s }
	f["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	f["lookup"] = lookupIn(cluster)
	f["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := (*set).ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := (*set).Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	return f
}

// templateFiles lists the chart's templates/ files by the names Helm gives them.
func templateFiles(dir, chartName string) (map[string]string, []string, error) {
	root := filepath.Join(dir, "templates")
	files := map[string]string{}
	var names []string
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name := chartName + "/" + filepath.ToSlash(rel)
		files[name] = string(data)
		names = append(names, name)
		return nil
	})
	sort.Strings(names)
	return files, names, err
}

// installOrder is the order in which `helm template` prints kinds; others come after, in file order.
var installOrder = []string{"Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
	"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
	"APIService"}

type manifest struct {
	source, body string
	rank         int
}

func kindRank(body string) int {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "kind:") {
			kind := strings.TrimSpace(strings.TrimPrefix(line, "kind:"))
			for i, k := range installOrder {
				if k == kind {
					return i
				}
			}
			break
		}
	}
	return len(installOrder)
}

// splitDocuments splits one template's output into its non-empty YAML documents.
func splitDocuments(source, out string) []manifest {
	var docs []manifest
	for _, d := range strings.Split("\n"+out, "\n---") {
		body := strings.TrimSpace(d)
		if body == "" {
			continue
		}
		docs = append(docs, manifest{source: source, body: body, rank: kindRank(body)})
	}
	return docs
}

func isRendered(name string) bool {
	base := filepath.Base(name)
	return !strings.HasPrefix(base, "_") && base != "NOTES.txt"
}

func crdDocuments(dir, chartName string) ([]manifest, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "crds", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var docs []manifest
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		docs = append(docs, splitDocuments(chartName+"/crds/"+filepath.Base(p), string(data))...)
	}
	return docs, nil
}

func renderChart(dir string, top renderContext, includeCRDs bool, cluster []values) (string, error) {
	files, names, err := templateFiles(dir, top.Chart.Name)
	if err != nil {
		return "", err
	}
	var set *template.Template
	set = template.New("chart").Option("missingkey=zero").Funcs(funcMap(&set, cluster))
	for _, n := range names {
		if _, err := set.New(n).Parse(files[n]); err != nil {
			return "", err
		}
	}
	var docs []manifest
	for _, n := range names {
		if !isRendered(n) {
			continue
		}
		ctx := top
		ctx.Template = map[string]string{"Name": n, "BasePath": top.Chart.Name + "/templates"}
		var buf bytes.Buffer
		if err := set.ExecuteTemplate(&buf, n, ctx); err != nil {
			return "", err
		}
		docs = append(docs, splitDocuments(n, strings.ReplaceAll(buf.String(), "<no value>", ""))...)
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].rank < docs[j].rank })
	if includeCRDs {
		crds, err := crdDocuments(dir, top.Chart.Name)
		if err != nil {
			return "", err
		}
		docs = append(crds, docs...)
	}
	var out strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", d.source, d.body)
	}
	return out.String(), nil
}
