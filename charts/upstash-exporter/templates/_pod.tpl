{{/*
The pod's securityContext: the values, with runAsNonRoot and a seccomp profile always set (a value of
null removes a key in Helm, which must not remove the hardening), and no root user or group.
*/}}
{{- define "upstash-exporter.podSecurityContext" -}}
{{- $context := deepCopy (.Values.podSecurityContext | default dict) -}}
{{- include "upstash-exporter.checkSecurityContext" (dict "path" "podSecurityContext" "context" $context) -}}
{{- include "upstash-exporter.checkPodSecurity" (dict "path" "podSecurityContext" "context" $context) -}}
{{- $_ := set $context "runAsNonRoot" true -}}
{{- if not (dig "seccompProfile" "type" "" $context) -}}
{{- $_ := set $context "seccompProfile" (dict "type" "RuntimeDefault") -}}
{{- end -}}
{{- toYaml $context -}}
{{- end -}}

{{/*
The container's securityContext: the values over the hardening the chart always renders; a value that
contradicts it fails instead of weakening it.
*/}}
{{- define "upstash-exporter.securityContext" -}}
{{- $context := deepCopy (.Values.securityContext | default dict) -}}
{{- include "upstash-exporter.checkSecurityContext" (dict "path" "securityContext" "context" $context) -}}
{{- include "upstash-exporter.checkPodSecurity" (dict "path" "securityContext" "context" $context) -}}
{{- $required := dict "allowPrivilegeEscalation" false "privileged" false "readOnlyRootFilesystem" true "runAsNonRoot" true -}}
{{- range $key, $want := $required -}}
{{- if and (hasKey $context $key) (ne (get $context $key) $want) -}}
{{- fail (printf "securityContext.%s: must be %v (the exporter needs no privilege, no writable root and no root user); remove it" $key $want) -}}
{{- end -}}
{{- $_ := set $context $key $want -}}
{{- end -}}
{{- $capabilities := $context.capabilities | default dict -}}
{{- range $capability := $capabilities.add | default list -}}
{{- if ne $capability "NET_BIND_SERVICE" -}}
{{- fail (printf "securityContext.capabilities.add: %s is not needed by an HTTP exporter (only NET_BIND_SERVICE, for a port below 1024, is allowed)" $capability) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $capabilities "drop" (list "ALL") -}}
{{- $_ := set $context "capabilities" $capabilities -}}
{{- toYaml $context -}}
{{- end -}}

{{/*
What neither securityContext may say. Takes (dict path context).
*/}}
{{- define "upstash-exporter.checkSecurityContext" -}}
{{- $context := .context -}}
{{- if and (hasKey $context "runAsNonRoot") (not $context.runAsNonRoot) -}}
{{- fail (printf "%s.runAsNonRoot: must be true (the image runs as user 1000); remove it" .path) -}}
{{- end -}}
{{- range $key := list "runAsUser" "runAsGroup" -}}
{{- if and (hasKey $context $key) (eq (int (get $context $key)) 0) -}}
{{- fail (printf "%s.%s: 0 is root, which runAsNonRoot refuses (the pod would never start); use a non-zero id such as 1000" $.path $key) -}}
{{- end -}}
{{- end -}}
{{- if eq (dig "seccompProfile" "type" "" $context) "Unconfined" -}}
{{- fail (printf "%s.seccompProfile.type: Unconfined turns seccomp off; use RuntimeDefault or a Localhost profile" .path) -}}
{{- end -}}
{{- if eq (toString (dig "procMount" "" $context)) "Unmasked" -}}
{{- fail (printf "%s.procMount: Unmasked exposes the host's /proc; remove it" .path) -}}
{{- end -}}
{{- if dig "windowsOptions" "hostProcess" false $context -}}
{{- fail (printf "%s.windowsOptions.hostProcess: runs on the host; remove it" .path) -}}
{{- end -}}
{{- end -}}

{{/*
One probe: the user's handler if they gave one, else the chart's; then the timing values. Takes (dict
probe handler) where handler is the chart's.
*/}}
{{- define "upstash-exporter.probe" -}}
{{- $probe := omit (deepCopy (.probe | default dict)) "enabled" -}}
{{- $own := false -}}
{{- range $handler := list "httpGet" "tcpSocket" "exec" "grpc" -}}
{{- if hasKey $probe $handler -}}{{- $own = true -}}{{- end -}}
{{- end -}}
{{- if not $own -}}
{{- $probe = merge $probe .handler -}}
{{- end -}}
{{- toYaml $probe -}}
{{- end -}}

{{/*
The pod template shared by the Deployment and the StatefulSet.
*/}}
{{- define "upstash-exporter.podTemplate" -}}
{{- $tls := include "upstash-exporter.tls" . -}}
{{- $scheme := ternary "HTTPS" "HTTP" (eq $tls "true") -}}
{{- $healthz := dict "httpGet" (dict "path" "/healthz" "port" "http" "scheme" $scheme) -}}
{{- /* Probes are open under basic auth (docs/operations.md, Endpoints): readiness is /readyz always. */}}
{{- $readyz := dict "httpGet" (dict "path" "/readyz" "port" "http" "scheme" $scheme) -}}
{{- if include "upstash-exporter.clientAuth" . -}}
{{- $healthz = dict "tcpSocket" (dict "port" "http") -}}
{{- $readyz = $healthz -}}
{{- end -}}
metadata:
  labels:
    {{- include "upstash-exporter.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ include "upstash-exporter.config" . | sha256sum | quote }}
    {{- if and .Values.secret.create (not .Values.secret.existingSecret) }}
    checksum/secret: {{ include "upstash-exporter.secretChecksum" (list . (toJson .Values.secret.data) "secret") | quote }}
    {{- end }}
    {{- if and .Values.webConfig.enabled (not .Values.webConfig.existingSecret) }}
    checksum/web-config: {{ include "upstash-exporter.secretChecksum" (list . (toJson .Values.webConfig.content) "web-config") | quote }}
    {{- end }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "upstash-exporter.serviceAccountName" . | quote }}
  automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
  {{- with include "upstash-exporter.pullSecrets" . | fromJsonArray }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if not .Values.hostUsers }}
  # A user namespace: root in the container is an unprivileged user on the node.
  hostUsers: false
  {{- end }}
  {{- with .Values.dnsPolicy }}
  dnsPolicy: {{ . | quote }}
  {{- end }}
  {{- with .Values.dnsConfig }}
  dnsConfig:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . | quote }}
  {{- end }}
  securityContext:
    {{- include "upstash-exporter.podSecurityContext" . | nindent 4 }}
  terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds | int }}
  {{- with include "upstash-exporter.extraContainers" (dict "root" . "key" "extraInitContainers") }}
  initContainers:
    {{- . | nindent 4 }}
  {{- end }}
  containers:
    - name: exporter
      image: {{ include "upstash-exporter.image" . | quote }}
      imagePullPolicy: {{ .Values.image.pullPolicy | quote }}
      args:
        - --config=/etc/upstash-exporter/config/config.yaml
        - {{ printf "--web.listen-address=:%d" (int .Values.containerPort) | quote }}
        - {{ printf "--log.level=%s" .Values.log.level | quote }}
        - {{ printf "--log.format=%s" .Values.log.format | quote }}
        {{- if .Values.webConfig.enabled }}
        - --web.config.file=/etc/upstash-exporter/web/web-config.yml
        {{- end }}
        {{- if include "upstash-exporter.sharded" . }}
        - --shard=auto
        - {{ printf "--total-shards=%d" (int .Values.sharding.shards) | quote }}
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
          containerPort: {{ .Values.containerPort | int }}
          protocol: TCP
      livenessProbe:
        {{- include "upstash-exporter.probe" (dict "probe" .Values.livenessProbe "handler" $healthz) | nindent 8 }}
      readinessProbe:
        {{- include "upstash-exporter.probe" (dict "probe" .Values.readinessProbe "handler" $readyz) | nindent 8 }}
      {{- if .Values.startupProbe.enabled }}
      startupProbe:
        {{- include "upstash-exporter.probe" (dict "probe" .Values.startupProbe "handler" $healthz) | nindent 8 }}
      {{- end }}
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      securityContext:
        {{- include "upstash-exporter.securityContext" . | nindent 8 }}
      volumeMounts:
        - name: config
          mountPath: /etc/upstash-exporter/config
          readOnly: true
        {{- if include "upstash-exporter.hasSecret" . }}
        - name: credentials
          mountPath: {{ .Values.secret.mountPath | quote }}
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
        {{- include "upstash-exporter.checkMounts" (dict "path" "extraVolumeMounts" "mounts" . "volumes" (include "upstash-exporter.podVolumes" $ | fromJsonArray) "own" (include "upstash-exporter.ownMountPaths" $ | fromJsonArray)) }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    {{- with include "upstash-exporter.extraContainers" (dict "root" . "key" "extraContainers") }}
    {{- . | nindent 4 }}
    {{- end }}
  volumes:
    - name: config
      configMap:
        name: {{ include "upstash-exporter.fullname" . | quote }}
    {{- if include "upstash-exporter.hasSecret" . }}
    - name: credentials
      secret:
        secretName: {{ include "upstash-exporter.secretName" . | quote }}
        defaultMode: 288 # 0440: owner and group (fsGroup) read
    {{- end }}
    {{- if .Values.webConfig.enabled }}
    - name: web-config
      secret:
        secretName: {{ include "upstash-exporter.webConfigSecretName" . | quote }}
        defaultMode: 288 # 0440: owner and group (fsGroup) read
    {{- end }}
    {{- if .Values.webConfig.tlsSecret }}
    - name: tls
      secret:
        secretName: {{ .Values.webConfig.tlsSecret | quote }}
        defaultMode: 288 # 0440: owner and group (fsGroup) read
    {{- end }}
    - name: tmp
      emptyDir:
        sizeLimit: 16Mi
    {{- with .Values.extraVolumes }}
    {{- include "upstash-exporter.checkVolumes" $ }}
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
    {{- /* Without a labelSelector a constraint counts no pod: spread this release's pods. */}}
    {{- range . }}
    {{- $constraint := deepCopy . }}
    {{- if not (hasKey $constraint "labelSelector") }}
    {{- $_ := set $constraint "labelSelector" (dict "matchLabels" (include "upstash-exporter.selectorLabels" $ | fromYaml)) }}
    {{- end }}
    - {{- toYaml $constraint | nindent 6 }}
    {{- end }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
