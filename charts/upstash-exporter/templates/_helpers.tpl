{{/* vim: set filetype=mustache: */}}
{{/*
Expand the name of the chart.
*/}}
{{- define "upstash-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The fully qualified name of every object, as prometheus-community's fullname helpers make it, but cut to
52 characters with shards: a StatefulSet's pods carry a controller-revision-hash label of its name plus
an 11-character hash, and a label value stops at 63. It must also be a DNS label starting with a letter
(the Service's name), which a release name with a dot or a leading digit is not.
*/}}
{{- define "upstash-exporter.fullname" -}}
{{- $limit := ternary 52 63 (eq (include "upstash-exporter.sharded" .) "true") -}}
{{- $full := "" -}}
{{- if .Values.fullnameOverride -}}
{{- $full = .Values.fullnameOverride -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- $full = ternary .Release.Name (printf "%s-%s" .Release.Name $name) (contains $name .Release.Name) -}}
{{- end -}}
{{- $full = regexReplaceAll "[-.]+$" ($full | trunc $limit) "" -}}
{{- if not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $full) -}}
{{- fail (printf "the objects' name %q (from the release name) is not a DNS label starting with a letter, as a Service name must be: set fullnameOverride" $full) -}}
{{- end -}}
{{- $full -}}
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
The image tag without a digest written after it, defaulting to the chart's appVersion.
*/}}
{{- define "upstash-exporter.tag" -}}
{{- (splitList "@" .Values.image.tag | first) | default .Chart.AppVersion -}}
{{- end -}}

{{/*
The app.kubernetes.io/version label: the tag made a valid label value (63 characters at most, only
letters, digits, '-', '_' and '.', a letter or digit at both ends), whatever tag the schema lets through.
*/}}
{{- define "upstash-exporter.versionLabel" -}}
{{- $value := regexReplaceAll "[^A-Za-z0-9_.-]" (include "upstash-exporter.tag" .) "_" | trunc 63 -}}
{{- regexReplaceAll "^[^A-Za-z0-9]+|[^A-Za-z0-9]+$" $value "" -}}
{{- end -}}

{{/*
Common labels
*/}}
{{- define "upstash-exporter.labels" -}}
helm.sh/chart: {{ include "upstash-exporter.chart" . | quote }}
{{ include "upstash-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ include "upstash-exporter.versionLabel" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
app.kubernetes.io/component: metrics
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Selector labels
*/}}
{{- define "upstash-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "upstash-exporter.name" . | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end -}}

{{/*
The labels the chart sets itself; the label maps of the values must not set them again.
*/}}
{{- define "upstash-exporter.ownedLabels" -}}
{{- list "helm.sh/chart" "app.kubernetes.io/name" "app.kubernetes.io/instance" "app.kubernetes.io/version" "app.kubernetes.io/managed-by" "app.kubernetes.io/component" | toJson -}}
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
The image: [registry/]repository:tag[@digest]. The registry is global.imageRegistry or image.registry;
the digest is image.digest or the one written after the tag (both: they must be the same).
*/}}
{{- define "upstash-exporter.image" -}}
{{- $registry := dig "imageRegistry" "" (.Values.global | default dict) | default .Values.image.registry -}}
{{- $repository := ternary (printf "%s/%s" $registry .Values.image.repository) .Values.image.repository (ne $registry "") -}}
{{- $inline := splitList "@" .Values.image.tag | rest | first | default "" -}}
{{- if and $inline .Values.image.digest (ne $inline .Values.image.digest) -}}
{{- fail (printf "image.tag carries the digest %s and image.digest says %s: keep one of them" $inline .Values.image.digest) -}}
{{- end -}}
{{- $digest := .Values.image.digest | default $inline -}}
{{- printf "%s:%s" $repository (include "upstash-exporter.tag" .) -}}
{{- with $digest }}@{{ . }}{{ end -}}
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
"true" when basic auth guards /metrics, the landing page and /-/reload (the probes stay open).
*/}}
{{- define "upstash-exporter.basicAuth" -}}
{{- if .Values.webConfig.enabled -}}
{{- if or .Values.webConfig.basicAuth (hasKey .Values.webConfig.content "basic_auth_users") -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/*
"true" when a TLS connection without a client certificate is refused: no HTTP probe can pass then (the
kubelet has no client certificate), so the probes open TCP connections instead, as the Prometheus
Operator's fix of the same problem does (prometheus-operator#5419).
*/}}
{{- define "upstash-exporter.clientAuth" -}}
{{- if eq (include "upstash-exporter.tls" .) "true" -}}
{{- $type := dig "tls_server_config" "client_auth_type" "" .Values.webConfig.content -}}
{{- if or .Values.webConfig.clientAuth (has $type (list "RequireAnyClientCert" "RequireAndVerifyClientCert")) -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The number of shards; more than one runs a StatefulSet.
*/}}
{{- define "upstash-exporter.sharded" -}}
{{- if gt (int .Values.sharding.shards) 1 -}}true{{- end -}}
{{- end -}}

{{/*
The exporter's config file; validate.tpl has refused credentials and the keys the chart owns.
*/}}
{{- define "upstash-exporter.config" -}}
{{- toYaml .Values.config -}}
{{- end -}}

{{/*
A change detector for a Secret's content, for a pod annotation that anyone allowed to read pods sees:
scrypt (sprig's derivePassword, the Master Password algorithm) salted with the release's namespace and
name, so that the annotation neither gives the content away nor lets it be guessed quickly, the way a
plain sha256 of a short or known-format token would. Takes (list root content purpose).
*/}}
{{- define "upstash-exporter.secretChecksum" -}}
{{- $root := index . 0 -}}
{{- $salt := printf "%s/%s" (include "upstash-exporter.namespace" $root) (include "upstash-exporter.fullname" $root) -}}
{{- derivePassword 1 "maximum" (index . 1) $salt (index . 2) | sha256sum -}}
{{- end -}}

{{/*
Milliseconds of a Prometheus duration as the schema allows it (a number and ms, s, m or h).
*/}}
{{- define "upstash-exporter.durationMs" -}}
{{- $n := regexFind "^[0-9]+" . | int -}}
{{- $unit := regexFind "[a-z]+$" . -}}
{{- mul $n (get (dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000) $unit) -}}
{{- end -}}

{{/*
The image pull Secrets: global.imagePullSecrets (prometheus-community's global, names or {name}) and
image.pullSecrets, each name once.
*/}}
{{- define "upstash-exporter.pullSecrets" -}}
{{- $names := list -}}
{{- range concat (dig "imagePullSecrets" list (.Values.global | default dict)) .Values.image.pullSecrets -}}
{{- $names = append $names (ternary . (get (ternary . dict (kindIs "map" .)) "name") (kindIs "string" .)) -}}
{{- end -}}
{{- $secrets := list -}}
{{- range uniq $names -}}
{{- $secrets = append $secrets (dict "name" .) -}}
{{- end -}}
{{- toJson $secrets -}}
{{- end -}}

{{/*
The Service's annotations: prometheus.io/* with prometheusScrape (for a Prometheus without the
Operator, whose kubernetes-service-endpoints job reads them), under service.annotations, which win.
*/}}
{{- define "upstash-exporter.serviceAnnotations" -}}
{{- $annotations := deepCopy (.Values.service.annotations | default dict) -}}
{{- if .Values.prometheusScrape -}}
{{- $scheme := ternary "https" "http" (eq (include "upstash-exporter.tls" .) "true") -}}
{{- $annotations = merge $annotations (dict "prometheus.io/scrape" "true" "prometheus.io/port" (toString (int .Values.containerPort)) "prometheus.io/path" "/metrics" "prometheus.io/scheme" $scheme) -}}
{{- end -}}
{{- with $annotations -}}{{- toYaml . -}}{{- end -}}
{{- end -}}
