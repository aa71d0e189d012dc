{{/* The app name: nameOverride, else "metallb" (not the chart's name), so that the objects and
labels are MetalLB's chart's (docs/compatibility.md, "Names and labels"). */}}
{{- define "ingot.name" -}}
{{- default "metallb" .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* True when the render uses MetalLB's plain-manifest names (naming=manifests: Deployment
"controller", DaemonSet "speaker", labels app=metallb,component=...) instead of its chart's. */}}
{{- define "ingot.manifestNaming" -}}
{{- if eq .Values.naming "manifests" }}true{{ end }}
{{- end }}

{{/* The name of a component's namespaced objects (Deployment, DaemonSet, ServiceAccount, Role):
(dict "ctx" $ "component" "controller") renders "<fullname>-controller", or "controller" with
naming=manifests. */}}
{{- define "ingot.componentName" -}}
{{- if include "ingot.manifestNaming" .ctx }}{{ .component }}
{{- else }}{{ printf "%s-%s" (include "ingot.fullname" .ctx) .component | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The name of a component's ClusterRole and ClusterRoleBinding: "<fullname>:<component>", or
"<namespace>:<component>" (MetalLB's "metallb-system:controller") with naming=manifests. */}}
{{- define "ingot.clusterRoleName" -}}
{{- if include "ingot.manifestNaming" .ctx }}{{ printf "%s:%s" .ctx.Release.Namespace .component }}
{{- else }}{{ printf "%s:%s" (include "ingot.fullname" .ctx) .component }}
{{- end }}
{{- end }}

{{/* The label naming a component: app.kubernetes.io/component, or component with
naming=manifests. */}}
{{- define "ingot.componentLabel" -}}
{{- if include "ingot.manifestNaming" .ctx }}component: {{ .component }}
{{- else }}app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{/* A component's Pod selector labels: selectorLabels and componentLabel. */}}
{{- define "ingot.componentSelector" -}}
{{ include "ingot.selectorLabels" .ctx }}
{{ include "ingot.componentLabel" . }}
{{- end }}

{{/* componentSelector as a label selector string ("k=v,k=v"), for the daemons' flags. */}}
{{- define "ingot.componentSelectorString" -}}
{{- $pairs := list }}
{{- range $k, $v := fromYaml (include "ingot.componentSelector" .) }}
{{- $pairs = append $pairs (printf "%s=%s" $k $v) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{/* Full name: fullnameOverride, else the release name, suffixed with the app name (ingot.name)
unless it contains it already, as MetalLB's chart: release "metallb" gives "metallb". */}}
{{- define "ingot.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "ingot.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The labels every Pod of the release carries: MetalLB's chart's app.kubernetes.io/name and
instance, or its manifests' app=metallb with naming=manifests. */}}
{{- define "ingot.selectorLabels" -}}
{{- if include "ingot.manifestNaming" . -}}
app: {{ include "ingot.name" . }}
{{- else -}}
app.kubernetes.io/name: {{ include "ingot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- end }}

{{/* The labels of every object: Helm's recommended set, or app=metallb alone with
naming=manifests (as MetalLB's manifests). */}}
{{- define "ingot.labels" -}}
{{- if include "ingot.manifestNaming" . -}}
{{- include "ingot.selectorLabels" . }}
{{- else -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "ingot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
{{- end }}

{{- define "ingot.controller.serviceAccountName" -}}
{{- if .Values.controller.serviceAccount.create }}
{{- default (include "ingot.componentName" (dict "ctx" . "component" "controller")) .Values.controller.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.controller.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "ingot.speaker.serviceAccountName" -}}
{{- if .Values.speaker.serviceAccount.create }}
{{- default (include "ingot.componentName" (dict "ctx" . "component" "speaker")) .Values.speaker.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.speaker.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "ingot.secretName" -}}
{{- default (include "ingot.componentName" (dict "ctx" . "component" "memberlist")) .Values.speaker.secretName | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The agent's BGP mode, after the checks MetalLB's chart makes on the same values. With neither
frr-k8s nor FRR (MetalLB's native flavour) the agents run Layer 2 only: Ingot has no BGP speaker
of its own, so BGPPeers are reported instead of served. */}}
{{- define "ingot.bgpMode" -}}
{{- if and .Values.speaker.frr.enabled (or .Values.frrk8s.enabled .Values.frrk8s.external) }}
{{- fail "speaker.frr.enabled and frrk8s.enabled/frrk8s.external are mutually exclusive: set frrk8s.enabled=false for frr mode" }}
{{- else if and .Values.frrk8s.enabled .Values.frrk8s.external }}
{{- fail "frrk8s.enabled and frrk8s.external are mutually exclusive" }}
{{- else if .Values.speaker.frr.enabled }}frr
{{- else if or .Values.frrk8s.enabled .Values.frrk8s.external }}frr-k8s
{{- else }}none
{{- end }}
{{- end }}

{{/* frr-k8s' namespace: an external frr-k8s must be named (as MetalLB's chart requires); the
default one lives in the release namespace. */}}
{{- define "ingot.frrk8sNamespace" -}}
{{- if .Values.frrk8s.external }}
{{- required "namespace is required when frrk8s is external" .Values.frrk8s.namespace }}
{{- else }}
{{- default .Release.Namespace .Values.frrk8s.namespace }}
{{- end }}
{{- end }}

{{/* The FRR version whose vtysh and frr-reload.py the agent and ingot-frr images carry (Debian
12's frr package, copied by scripts/build-images; images/README.md). The FRR container they drive
must run the same version. */}}
{{- define "ingot.toolsFrrVersion" -}}8.4{{- end }}

{{/* image renders "repository:tag", the tag defaulting to the chart's appVersion, from
(dict "image" <values> "appVersion" .Chart.AppVersion "path" "<values path>" ["frr" true]).
It refuses, naming the value: a short name (no registry host, so the container runtime would
resolve it through its search registries, a public registry), MetalLB's own images (a MetalLB
values file would otherwise run MetalLB at Ingot's tag), and for FRR images ("frr") FRRouting's
image at a version other than the one the agent's vtysh and frr-reload.py speak. */}}
{{- define "ingot.image" -}}
{{- $repo := .image.repository | default "" }}
{{- $tag := .image.tag | default .appVersion | toString }}
{{- $host := index (splitList "/" $repo) 0 }}
{{- if hasPrefix "quay.io/metallb/" $repo }}
{{- fail (printf "%s.repository=%q is MetalLB's image: this chart runs Ingot's daemons; remove the value (default %s) or give an Ingot image" .path $repo (include "ingot.defaultImage" .path)) }}
{{- end }}
{{- if or (not (contains "/" $repo)) (not (or (eq $host "localhost") (contains "." $host) (contains ":" $host))) }}
{{- fail (printf "%s.repository=%q is not fully qualified: without a registry host the container runtime resolves it through its search registries (a public registry); give the registry, e.g. localhost/%s or registry.example.com/%s" .path $repo $repo $repo) }}
{{- end }}
{{- $frrVersion := include "ingot.toolsFrrVersion" . }}
{{- if and .frr (hasSuffix "/frrouting/frr" $repo) (not (or (eq $tag $frrVersion) (hasPrefix (printf "%s." $frrVersion) $tag))) }}
{{- fail (printf "%s=%s:%s is FRR %s, but the agent's vtysh and frr-reload.py are FRR %s: use Ingot's FRR image (the default, %s) or an FRR %s image" .path $repo $tag $tag (include "ingot.toolsFrrVersion" .) (include "ingot.defaultImage" .path) (include "ingot.toolsFrrVersion" .)) }}
{{- end }}
{{- printf "%s:%s" $repo $tag }}
{{- end }}

{{/* defaultImage names the default repository of an image value path, for messages. */}}
{{- define "ingot.defaultImage" -}}
{{- get (dict "controller.image" "localhost/ingot/controller" "speaker.image" "localhost/ingot/agent" "speaker.frr.image" "localhost/ingot/frr" "frrk8s.ingotFrr.image" "localhost/ingot/ingot-frr" "frrk8s.ingotFrr.frrImage" "localhost/ingot/frr") . }}
{{- end }}

{{/* probes renders the liveness/readiness probes of a component's values on its one health port
(livenessProbe.port, also given to the daemon as --health-probe-port). */}}
{{- define "ingot.probes" -}}
{{- range $kind := list "livenessProbe" "readinessProbe" }}
{{- $p := get $.values $kind }}
{{- if $p.enabled }}
{{ $kind }}:
  httpGet:
    {{- with $.host }}
    host: {{ . }}
    {{- end }}
    path: {{ ternary "/healthz" "/readyz" (eq $kind "livenessProbe") }}
    port: {{ $.values.livenessProbe.port }}
  initialDelaySeconds: {{ $p.initialDelaySeconds }}
  periodSeconds: {{ $p.periodSeconds }}
  timeoutSeconds: {{ $p.timeoutSeconds }}
  successThreshold: {{ $p.successThreshold }}
  failureThreshold: {{ $p.failureThreshold }}
{{- end }}
{{- end }}
{{- end }}

{{/* scheduling renders the pod's scheduling fields from a component's values. The daemons are
Linux binaries: nodeSelector always holds kubernetes.io/os: linux, as MetalLB's chart and
manifests, with the component's nodeSelector merged over it. */}}
{{- define "ingot.scheduling" -}}
nodeSelector:
  {{- toYaml (merge (dict) (.nodeSelector | default (dict)) (dict "kubernetes.io/os" "linux")) | nindent 2 }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .priorityClassName }}
priorityClassName: {{ . | quote }}
{{- end }}
{{- with .runtimeClassName }}
runtimeClassName: {{ . | quote }}
{{- end }}
{{- end }}
