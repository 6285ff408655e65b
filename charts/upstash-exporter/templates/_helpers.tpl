{{/* vim: set filetype=mustache: */}}
{{/*
Expand the name of the chart.
*/}}
{{- define "upstash-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
If release name contains chart name it will be used as a full name.
*/}}
{{- define "upstash-exporter.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "upstash-exporter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Allow the release namespace to be overridden.
*/}}
{{- define "upstash-exporter.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{/*
Common labels
*/}}
{{- define "upstash-exporter.labels" -}}
helm.sh/chart: {{ include "upstash-exporter.chart" . }}
{{ include "upstash-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: metrics
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Selector labels
*/}}
{{- define "upstash-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "upstash-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Create the name of the service account to use
*/}}
{{- define "upstash-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "upstash-exporter.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The image, tag defaulting to the chart's appVersion.
*/}}
{{- define "upstash-exporter.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if .Values.image.digest -}}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/*
The Secret holding the Upstash credentials: an existing one, or the one this chart creates.
*/}}
{{- define "upstash-exporter.secretName" -}}
{{- if .Values.secret.existingSecret -}}
{{- .Values.secret.existingSecret -}}
{{- else -}}
{{- printf "%s-credentials" (include "upstash-exporter.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
Whether a credentials Secret is mounted at all.
*/}}
{{- define "upstash-exporter.hasSecret" -}}
{{- if or .Values.secret.existingSecret .Values.secret.create -}}true{{- end -}}
{{- end -}}

{{/*
The Secret holding the web config (TLS, basic auth).
*/}}
{{- define "upstash-exporter.webConfigSecretName" -}}
{{- if .Values.webConfig.existingSecret -}}
{{- .Values.webConfig.existingSecret -}}
{{- else -}}
{{- printf "%s-web-config" (include "upstash-exporter.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
"true" when /metrics is served over TLS (probes and the ServiceMonitor then use HTTPS).
*/}}
{{- define "upstash-exporter.tls" -}}
{{- if .Values.webConfig.enabled -}}
{{- if or .Values.webConfig.tls (hasKey .Values.webConfig.content "tls_server_config") -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/*
"true" when basic auth guards every path but /healthz (readiness then probes /healthz).
*/}}
{{- define "upstash-exporter.basicAuth" -}}
{{- if .Values.webConfig.enabled -}}
{{- if or .Values.webConfig.basicAuth (hasKey .Values.webConfig.content "basic_auth_users") -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The number of shards; more than one runs a StatefulSet.
*/}}
{{- define "upstash-exporter.sharded" -}}
{{- if gt (int .Values.sharding.shards) 1 -}}true{{- end -}}
{{- end -}}

{{/*
The exporter's config file. Credentials must come from files (token_file, api_key_file) mounted from
the Secret, never as values in the ConfigMap: a plain `token` or `api_key` fails the rendering.
*/}}
{{- define "upstash-exporter.config" -}}
{{- range $i, $entry := .Values.config.qstash | default list -}}
{{- if hasKey $entry "token" -}}
{{- fail (printf "config.qstash[%d].token: credentials must not be in the ConfigMap; put the token in secret.data (or secret.existingSecret) and use token_file: %s/<key>" $i $.Values.secret.mountPath) -}}
{{- end -}}
{{- end -}}
{{- range $i, $entry := .Values.config.management | default list -}}
{{- if hasKey $entry "api_key" -}}
{{- fail (printf "config.management[%d].api_key: credentials must not be in the ConfigMap; put the key in secret.data (or secret.existingSecret) and use api_key_file: %s/<key>" $i $.Values.secret.mountPath) -}}
{{- end -}}
{{- end -}}
{{- toYaml .Values.config -}}
{{- end -}}

{{/*
The pod template shared by the Deployment and the StatefulSet.
*/}}
{{- define "upstash-exporter.podTemplate" -}}
{{- $tls := include "upstash-exporter.tls" . -}}
{{- $scheme := ternary "HTTPS" "HTTP" (eq $tls "true") -}}
metadata:
  labels:
    {{- include "upstash-exporter.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ include "upstash-exporter.config" . | sha256sum }}
    {{- if and .Values.secret.create (not .Values.secret.existingSecret) }}
    checksum/secret: {{ toYaml .Values.secret.data | sha256sum }}
    {{- end }}
    {{- if and .Values.webConfig.enabled (not .Values.webConfig.existingSecret) }}
    checksum/web-config: {{ toYaml .Values.webConfig.content | sha256sum }}
    {{- end }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "upstash-exporter.serviceAccountName" . }}
  automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
  {{- with .Values.image.pullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
  containers:
    - name: exporter
      image: {{ include "upstash-exporter.image" . | quote }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      args:
        - --config=/etc/upstash-exporter/config/config.yaml
        - --web.listen-address=:{{ .Values.containerPort }}
        - --log.level={{ .Values.log.level }}
        - --log.format={{ .Values.log.format }}
        {{- if .Values.webConfig.enabled }}
        - --web.config.file=/etc/upstash-exporter/web/web-config.yml
        {{- end }}
        {{- if include "upstash-exporter.sharded" . }}
        - --shard=auto
        - --total-shards={{ .Values.sharding.shards | int }}
        {{- end }}
        {{- range .Values.extraArgs }}
        - {{ . | quote }}
        {{- end }}
      {{- with .Values.env }}
      env:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      ports:
        - name: http
          containerPort: {{ .Values.containerPort }}
          protocol: TCP
      livenessProbe:
        httpGet:
          path: /healthz
          port: http
          scheme: {{ $scheme }}
        {{- toYaml .Values.probes.liveness | nindent 8 }}
      readinessProbe:
        httpGet:
          {{- /* /readyz is behind basic auth; a probe cannot send a password without writing it into the pod spec */}}
          path: {{ ternary "/healthz" "/readyz" (eq (include "upstash-exporter.basicAuth" .) "true") }}
          port: http
          scheme: {{ $scheme }}
        {{- toYaml .Values.probes.readiness | nindent 8 }}
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      securityContext:
        {{- toYaml .Values.securityContext | nindent 8 }}
      volumeMounts:
        - name: config
          mountPath: /etc/upstash-exporter/config
          readOnly: true
        {{- if include "upstash-exporter.hasSecret" . }}
        - name: credentials
          mountPath: {{ .Values.secret.mountPath }}
          readOnly: true
        {{- end }}
        {{- if .Values.webConfig.enabled }}
        - name: web-config
          mountPath: /etc/upstash-exporter/web
          readOnly: true
        {{- end }}
        {{- if .Values.webConfig.tlsSecret }}
        - name: tls
          mountPath: /etc/upstash-exporter/tls
          readOnly: true
        {{- end }}
        - name: tmp
          mountPath: /tmp
        {{- with .Values.extraVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
  volumes:
    - name: config
      configMap:
        name: {{ include "upstash-exporter.fullname" . }}
    {{- if include "upstash-exporter.hasSecret" . }}
    - name: credentials
      secret:
        secretName: {{ include "upstash-exporter.secretName" . }}
        defaultMode: 288 # 0440: owner and group (fsGroup) read
    {{- end }}
    {{- if .Values.webConfig.enabled }}
    - name: web-config
      secret:
        secretName: {{ include "upstash-exporter.webConfigSecretName" . }}
        defaultMode: 288 # 0440: owner and group (fsGroup) read
    {{- end }}
    {{- if .Values.webConfig.tlsSecret }}
    - name: tls
      secret:
        secretName: {{ .Values.webConfig.tlsSecret }}
        defaultMode: 288 # 0440: owner and group (fsGroup) read
    {{- end }}
    - name: tmp
      emptyDir:
        sizeLimit: 16Mi
    {{- with .Values.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
