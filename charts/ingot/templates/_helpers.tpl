{{/* Name of the chart, or nameOverride. */}}
{{- define "ingot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: fullnameOverride, else the release name, suffixed with the chart name unless it
contains it already. */}}
{{- define "ingot.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "ingot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ingot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "ingot.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "ingot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "ingot.controller.serviceAccountName" -}}
{{- if .Values.controller.serviceAccount.create }}
{{- default (printf "%s-controller" (include "ingot.fullname" .)) .Values.controller.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.controller.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "ingot.speaker.serviceAccountName" -}}
{{- if .Values.speaker.serviceAccount.create }}
{{- default (printf "%s-agent" (include "ingot.fullname" .)) .Values.speaker.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.speaker.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "ingot.secretName" -}}
{{- default (printf "%s-memberlist" (include "ingot.fullname" .)) .Values.speaker.secretName | trunc 63 | trimSuffix "-" }}
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

{{/* image renders "repository:tag", the tag defaulting to the chart's appVersion. */}}
{{- define "ingot.image" -}}
{{ .image.repository }}:{{ .image.tag | default .appVersion }}
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

{{/* scheduling renders the pod's scheduling fields from a component's values. */}}
{{- define "ingot.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
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
