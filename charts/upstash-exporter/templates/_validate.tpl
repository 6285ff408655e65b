{{/*
Checks of the values that the schema cannot express; each failure says which value, why, and what to do.
Included once, by configmap.yaml (rendered in every variant).
*/}}
{{- define "upstash-exporter.validate" -}}
{{- include "upstash-exporter.validateCredentials" . -}}
{{- include "upstash-exporter.validateOwned" . -}}
{{- include "upstash-exporter.validateLabels" . -}}
{{- include "upstash-exporter.validateWorkload" . -}}
{{- include "upstash-exporter.validateObjects" . -}}
{{- include "upstash-exporter.checkPodAnnotations" . -}}
{{- end -}}

{{/*
A key of the exporter's config that names a credential (its *_file keys are fine).
*/}}
{{- define "upstash-exporter.credentialKey" -}}
(?i)(^|[_.-])(tokens?|api_?key|apikey|key|passwords?|passwd|secrets?|credentials?|auth|authorization|bearer)$
{{- end -}}

{{/*
The same in camelCase (qstashToken, upstashApiKey, apiKey): a word starting with a capital letter.
*/}}
{{- define "upstash-exporter.camelCredentialKey" -}}
[a-z0-9](Tokens?|TOKENS?|Api_?Key|APIKey|ApiKEY|Key|KEY|Passwords?|PASSWORD|Passwd|Secrets?|SECRET|Credentials?|Auth|AUTH|Authorization|Bearer)$
{{- end -}}

{{/*
Walks a value and fails on anything shaped like a credential: a URL with a user or password in it, a
token in the shape of QStash's (base64 of a JSON object, as JWTs are), an Authorization header value, a
private key; with "keys", also on a map key naming a credential. Takes (dict path value keys mountPath).
*/}}
{{- define "upstash-exporter.scan" -}}
{{- $value := .value -}}
{{- if kindIs "map" $value -}}
{{- range $key, $item := $value -}}
{{- $path := printf "%s.%s" $.path $key -}}
{{- if and $.keys (or (regexMatch (include "upstash-exporter.credentialKey" $) $key) (regexMatch (include "upstash-exporter.camelCredentialKey" $) $key)) -}}
{{- fail (printf "%s: credentials must not be in the ConfigMap; put the value in secret.data (or secret.existingSecret) and name its file with the *_file key (token_file, api_key_file: %s/<key>)" $path $.mountPath) -}}
{{- end -}}
{{- include "upstash-exporter.scan" (dict "path" $path "value" $item "keys" $.keys "mountPath" $.mountPath) -}}
{{- end -}}
{{- else if kindIs "slice" $value -}}
{{- range $i, $item := $value -}}
{{- include "upstash-exporter.scan" (dict "path" (printf "%s[%d]" $.path $i) "value" $item "keys" $.keys "mountPath" $.mountPath) -}}
{{- end -}}
{{- else if kindIs "string" $value -}}
{{- $why := "" -}}
{{- if regexMatch "(?i)[a-z][a-z0-9+.-]*://[^/?#\\s@]+@" $value -}}
{{- $why = "is a URL with a user or password in it" -}}
{{- else if regexMatch "eyJ[A-Za-z0-9_=-]{8,}" $value -}}
{{- $why = "looks like a token (base64 of a JSON object, as QStash tokens and JWTs are)" -}}
{{- else if regexMatch "(?i)\\b(basic|bearer)\\s+[A-Za-z0-9+/=._~-]{8,}" $value -}}
{{- $why = "looks like an Authorization header value" -}}
{{- else if regexMatch "-----BEGIN [A-Z ]*PRIVATE KEY-----" $value -}}
{{- $why = "holds a private key" -}}
{{- /* Upstash database IDs are UUIDs too, as API keys are: config's list of them holds no credential. */}}
{{- else if and (not (and $.keys (regexMatch "\\.databases\\[[0-9]+\\]$" $.path))) (regexMatch "(?i)(^|[^0-9a-f-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}($|[^0-9a-f-])" $value) -}}
{{- $why = "looks like an Upstash API key (a UUID)" -}}
{{- end -}}
{{- if $why -}}
{{- fail (printf "%s %s: a credential would end up outside a Secret (in a ConfigMap, the pod spec or another object anyone allowed to read them sees); put it in secret.data or secret.existingSecret and refer to the file, or use valueFrom.secretKeyRef" $.path $why) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Credentials reach the pod only as files of the Secret. Every value but the Secret's own data, the web
config (itself a Secret) and extraManifests of kind Secret is scanned; config's keys too; env can name
neither the exporter's own variables (ignored under --config) nor carry a plain value under a name that
says credential.
*/}}
{{- define "upstash-exporter.validateCredentials" -}}
{{- $mount := .Values.secret.mountPath -}}
{{- range $key, $value := .Values -}}
{{- if eq $key "config" -}}
{{- include "upstash-exporter.scan" (dict "path" "config" "value" $value "keys" true "mountPath" $mount) -}}
{{- else if eq $key "webConfig" -}}
{{- include "upstash-exporter.scan" (dict "path" "webConfig" "value" (omit $value "content") "keys" false "mountPath" $mount) -}}
{{- else if eq $key "extraManifests" -}}
{{- range $i, $manifest := $value -}}
{{- $secret := ternary (regexMatch "(?m)^kind:\\s*Secret\\s*$" (toString $manifest)) (eq (dig "kind" "" (ternary $manifest dict (kindIs "map" $manifest))) "Secret") (kindIs "string" $manifest) -}}
{{- if not $secret -}}
{{- include "upstash-exporter.scan" (dict "path" (printf "extraManifests[%d]" $i) "value" $manifest "keys" false "mountPath" $mount) -}}
{{- end -}}
{{- end -}}
{{- else if ne $key "secret" -}}
{{- include "upstash-exporter.scan" (dict "path" $key "value" $value "keys" false "mountPath" $mount) -}}
{{- end -}}
{{- end -}}
{{- $exporterVariables := list "QSTASH_URL" "QSTASH_TOKEN" "QSTASH_TOKEN_FILE" "UPSTASH_MANAGEMENT_URL" "UPSTASH_EMAIL" "UPSTASH_API_KEY" "UPSTASH_API_KEY_FILE" "UPSTASH_REDIS_DATABASES" "UPSTASH_EXPORTER_CONFIG" -}}
{{- range $i, $env := .Values.env -}}
{{- if has $env.name $exporterVariables -}}
{{- fail (printf "env[%d] (%s): the exporter reads its settings from the config file the chart passes with --config and ignores this variable; put the setting in config (credentials in secret, referred to by token_file or api_key_file)" $i $env.name) -}}
{{- end -}}
{{- end -}}
{{- $envs := dict "env" .Values.env -}}
{{- range $key := list "extraContainers" "extraInitContainers" -}}
{{- range $i, $c := get $.Values $key -}}
{{- $_ := set $envs (printf "%s[%d].env" $key $i) ($c.env | default list) -}}
{{- end -}}
{{- end -}}
{{- range $path, $list := $envs -}}
{{- range $i, $env := $list -}}
{{- if and (hasKey $env "value") (regexMatch "(?i)(^|_)(TOKEN|API_?KEY|APIKEY|KEY|PASSWORD|PASSWD|PASS|SECRET|CREDENTIALS?|AUTH)(_|$)" (toString $env.name)) (not (regexMatch "(?i)_(FILE|PATH|DIR)$" (toString $env.name))) -}}
{{- fail (printf "%s[%d] (%s): a plain value under a name that says credential would be written into the pod spec; take it from a Secret with valueFrom.secretKeyRef" $path $i $env.name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
What the chart sets from its own values is not set a second time, differently, by config or extraArgs.
*/}}
{{- define "upstash-exporter.validateOwned" -}}
{{- $keys := dict "sharding" "sharding.shards" "listen_address" "containerPort" "log_level" "log.level" "log_format" "log.format" "web_config_file" "webConfig" -}}
{{- range $key, $value := $keys -}}
{{- if hasKey $.Values.config $key -}}
{{- fail (printf "config.%s: the chart sets this from %s (a second, different setting in the file would contradict the flags it passes); remove it from config and use %s" $key $value $value) -}}
{{- end -}}
{{- end -}}
{{- $flags := dict "--config" "config" "--web.listen-address" "containerPort" "--web.config.file" "webConfig" "--log.level" "log.level" "--log.format" "log.format" "--shard" "sharding.shards" "--total-shards" "sharding.shards" "--demo" "a values file of its own (the demo needs no credentials: it would ignore config)" "--check-config" "nothing (it exits at once: the pod would restart forever)" "--version" "nothing (it exits at once: the pod would restart forever)" "--help" "nothing (it exits at once: the pod would restart forever)" -}}
{{- range $i, $arg := .Values.extraArgs -}}
{{- $name := regexReplaceAll "=.*$" $arg "" -}}
{{- if hasKey $flags $name -}}
{{- fail (printf "extraArgs[%d] (%s): the chart owns %s; use %s" $i $arg $name (get $flags $name)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The label maps of the values cannot replace the chart's own labels: the selector would stop matching
(or a key would appear twice).
*/}}
{{- define "upstash-exporter.validateLabels" -}}
{{- $owned := include "upstash-exporter.ownedLabels" . | fromJsonArray -}}
{{- $maps := dict "commonLabels" .Values.commonLabels "podLabels" .Values.podLabels "service.labels" .Values.service.labels "dashboard.labels" .Values.dashboard.labels "serviceMonitor.additionalLabels" .Values.serviceMonitor.additionalLabels "podMonitor.additionalLabels" .Values.podMonitor.additionalLabels "prometheusRule.additionalLabels" .Values.prometheusRule.additionalLabels -}}
{{- range $name, $labels := $maps -}}
{{- range $key, $_ := $labels -}}
{{- if has $key $owned -}}
{{- fail (printf "%s.%s: the chart sets this label itself (its selectors depend on it); use nameOverride or another label" $name $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Settings of the workload that render but break or weaken it.
*/}}
{{- define "upstash-exporter.validateWorkload" -}}
{{- if and (include "upstash-exporter.sharded" .) (ne .Values.service.type "ClusterIP") -}}
{{- fail "service.type: shards need a ClusterIP Service (each shard exports different series; a load-balanced address would mix them)" -}}
{{- end -}}
{{- if and .Values.serviceMonitor.enabled .Values.podMonitor.enabled -}}
{{- fail "serviceMonitor.enabled and podMonitor.enabled: both would scrape every pod, twice; keep one" -}}
{{- end -}}
{{- if gt (int (include "upstash-exporter.durationMs" .Values.serviceMonitor.scrapeTimeout)) (int (include "upstash-exporter.durationMs" .Values.serviceMonitor.interval)) -}}
{{- fail (printf "serviceMonitor.scrapeTimeout (%s) is longer than serviceMonitor.interval (%s): Prometheus refuses such a scrape configuration" .Values.serviceMonitor.scrapeTimeout .Values.serviceMonitor.interval) -}}
{{- end -}}
{{- if eq .Values.strategy.type "RollingUpdate" -}}
{{- $rolling := .Values.strategy.rollingUpdate | default dict -}}
{{- $zero := list "0" "0%" -}}
{{- if and (has (toString (dig "maxSurge" 1 $rolling)) $zero) (has (toString (dig "maxUnavailable" 0 $rolling)) $zero) -}}
{{- fail "strategy.rollingUpdate: maxSurge and maxUnavailable cannot both be 0 (the API refuses it); keep maxSurge: 1" -}}
{{- end -}}
{{- end -}}
{{- range $name, $probe := dict "livenessProbe" .Values.livenessProbe "readinessProbe" .Values.readinessProbe "startupProbe" .Values.startupProbe -}}
{{- $handlers := list -}}
{{- range $handler := list "httpGet" "tcpSocket" "exec" "grpc" -}}
{{- if hasKey $probe $handler -}}{{- $handlers = append $handlers $handler -}}{{- end -}}
{{- end -}}
{{- if gt (len $handlers) 1 -}}
{{- fail (printf "%s: one handler at most (%s given)" $name (join ", " $handlers)) -}}
{{- end -}}
{{- range $header := dig "httpGet" "httpHeaders" list $probe -}}
{{- if eq (lower (toString $header.name)) "authorization" -}}
{{- fail (printf "%s.httpGet.httpHeaders: an Authorization header would write a credential into the pod spec; probe an open path (/healthz, /readyz)" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Values the API server would refuse, or that would do something other than they say.
*/}}
{{- define "upstash-exporter.validateObjects" -}}
{{- range $key, $_ := .Values.secret.data -}}
{{- if or (not (regexMatch "^[-._a-zA-Z0-9]+$" $key)) (hasPrefix ".." $key) (eq $key ".") (gt (len $key) 253) -}}
{{- fail (printf "secret.data: %q is not a valid Secret key (the API takes letters, digits, '-', '_' and '.', at most 253, and neither '.' nor a key starting with '..', which the kubelet keeps for its own links); rename it, e.g. qstash-token, and name that file in token_file" $key) -}}
{{- end -}}
{{- end -}}
{{- range $field := list "username" "password" -}}
{{- $value := get $.Values.serviceMonitor.basicAuth $field -}}
{{- if and $value (not (kindIs "map" $value)) -}}
{{- fail (printf "serviceMonitor.basicAuth.%s: a plain value would be written into the ServiceMonitor, which anyone allowed to read it sees; give a Secret reference, {name: <secret>, key: <key>} (the Prometheus Operator reads it from that Secret)" $field) -}}
{{- end -}}
{{- end -}}
{{- $resources := dict "resources" .Values.resources -}}
{{- range $key := list "extraContainers" "extraInitContainers" -}}
{{- range $i, $c := get $.Values $key -}}
{{- $_ := set $resources (printf "%s[%d].resources" $key $i) ($c.resources | default dict) -}}
{{- end -}}
{{- end -}}
{{- range $path, $of := $resources -}}
{{- range $kind := list "requests" "limits" -}}
{{- $memory := dig $kind "memory" "" ($of | default dict) -}}
{{- if or (kindIs "float64" $memory) (kindIs "int64" $memory) (kindIs "int" $memory) (regexMatch "^[0-9.]+(e[0-9]+)?m?$" (toString $memory)) -}}
{{- fail (printf "%s.%s.memory: %v is a number of bytes (or, with m, of thousandths of a byte), far too little for a container; give a quantity with a binary unit, like 384Mi" $path $kind $memory) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $name, $probe := dict "livenessProbe" .Values.livenessProbe "readinessProbe" .Values.readinessProbe "startupProbe" .Values.startupProbe -}}
{{- include "upstash-exporter.checkHandlerHost" (dict "path" $name "handler" $probe) -}}
{{- end -}}
{{- /* The Secret's mount may neither repeat the chart's other mounts (the API refuses a duplicate
mountPath) nor nest with one (a read-only volume cannot take the other's mount point, or hides its files). */}}
{{- $secretAt := include "upstash-exporter.mountPath" (dict "path" "secret.mountPath" "value" .Values.secret.mountPath) -}}
{{- range $taken := list "/etc/upstash-exporter/config" "/etc/upstash-exporter/web" "/etc/upstash-exporter/tls" "/tmp" -}}
{{- if include "upstash-exporter.nested" (dict "a" $secretAt "b" $taken) -}}
{{- fail (printf "secret.mountPath: %s collides with %s, which the chart mounts itself (the API refuses a second mount at one path, and nested mounts hide files); use a directory of its own, like the default /etc/upstash-exporter/secrets, and name its files in token_file and api_key_file" $.Values.secret.mountPath $taken) -}}
{{- end -}}
{{- end -}}
{{- if and (eq .Values.dnsPolicy "None") (not (dig "nameservers" list (.Values.dnsConfig | default dict))) -}}
{{- fail "dnsPolicy: None takes every DNS setting from dnsConfig, which names no nameserver (the API refuses the pod); add dnsConfig.nameservers, or use ClusterFirst" -}}
{{- end -}}
{{- end -}}

{{/*
"true" when the PodDisruptionBudget allows no voluntary eviction: every node drain would wait on it.
*/}}
{{- define "upstash-exporter.pdbBlocks" -}}
{{- $pdb := .Values.podDisruptionBudget -}}
{{- if $pdb.enabled -}}
{{- $pods := ternary (int .Values.sharding.shards) 1 (eq (include "upstash-exporter.sharded" .) "true") -}}
{{- if not (kindIs "invalid" $pdb.minAvailable) -}}
{{- $min := toString $pdb.minAvailable -}}
{{- if or (eq $min "100%") (and (not (hasSuffix "%" $min)) (ge (int $min) $pods)) -}}true{{- end -}}
{{- else if has (toString $pdb.maxUnavailable) (list "0" "0%") -}}true{{- end -}}
{{- end -}}
{{- end -}}
