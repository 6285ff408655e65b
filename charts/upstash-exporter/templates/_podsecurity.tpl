{{/*
Pod Security Standards (Kubernetes 1.34), baseline and restricted: what the values must not put in the pod.
Every pod the chart renders passes both; each check names the value and what to use instead.
*/}}

{{/*
The sysctls the baseline allows (namespaced, isolated from the node); any other is refused by a namespace
enforcing baseline, and most need the kubelet's --allowed-unsafe-sysctls.
*/}}
{{- define "upstash-exporter.safeSysctls" -}}
{{- list "kernel.shm_rmid_forced" "net.ipv4.ip_local_port_range" "net.ipv4.ip_unprivileged_port_start" "net.ipv4.tcp_syncookies" "net.ipv4.ping_group_range" "net.ipv4.ip_local_reserved_ports" "net.ipv4.tcp_keepalive_time" "net.ipv4.tcp_fin_timeout" "net.ipv4.tcp_keepalive_intvl" "net.ipv4.tcp_keepalive_probes" | toJson -}}
{{- end -}}

{{/*
The volume types the restricted profile allows (the others reach the node or outside storage directly).
*/}}
{{- define "upstash-exporter.allowedVolumeTypes" -}}
{{- list "configMap" "csi" "downwardAPI" "emptyDir" "ephemeral" "persistentVolumeClaim" "projected" "secret" | toJson -}}
{{- end -}}

{{/*
What a securityContext (the pod's or a container's) must not say, beyond the chart's hardening: AppArmor
off, an SELinux type other than the container ones or a user or role, sysctls outside the safe set. Takes
(dict path context).
*/}}
{{- define "upstash-exporter.checkPodSecurity" -}}
{{- $context := .context -}}
{{- if eq (toString (dig "appArmorProfile" "type" "" $context)) "Unconfined" -}}
{{- fail (printf "%s.appArmorProfile.type: Unconfined turns AppArmor off, which Pod Security baseline forbids; use RuntimeDefault or a Localhost profile, or remove it" .path) -}}
{{- end -}}
{{- $selinux := $context.seLinuxOptions | default dict -}}
{{- $type := toString ($selinux.type | default "") -}}
{{- if and $type (not (has $type (list "container_t" "container_init_t" "container_kvm_t" "container_engine_t"))) -}}
{{- fail (printf "%s.seLinuxOptions.type: %s is not one of the container types Pod Security baseline allows (container_t, container_init_t, container_kvm_t, container_engine_t); use one of them, or remove it" .path $type) -}}
{{- end -}}
{{- range $key := list "user" "role" -}}
{{- if get $selinux $key -}}
{{- fail (printf "%s.seLinuxOptions.%s: Pod Security baseline forbids setting an SELinux %s; remove it (level and type may stay)" $.path $key $key) -}}
{{- end -}}
{{- end -}}
{{- $safe := include "upstash-exporter.safeSysctls" . | fromJsonArray -}}
{{- range $i, $sysctl := $context.sysctls | default list -}}
{{- if not (has (toString $sysctl.name) $safe) -}}
{{- fail (printf "%s.sysctls[%d] (%s): not one of the safe sysctls Pod Security baseline allows (%s); remove it (the exporter needs none)" $.path $i (toString $sysctl.name) (join ", " $safe)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
A probe or lifecycle handler with host set sends the kubelet to any address it names, which Pod Security
baseline forbids since 1.34. Takes (dict path handler).
*/}}
{{- define "upstash-exporter.checkHandlerHost" -}}
{{- range $kind := list "httpGet" "tcpSocket" -}}
{{- if dig $kind "host" "" ($.handler | default dict) -}}
{{- fail (printf "%s.%s.host: the kubelet would connect to that address instead of the pod, which Pod Security baseline forbids (Kubernetes 1.34); remove host (the pod's own IP is used)" $.path $kind) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The AppArmor annotations of the pod: only runtime/default or a localhost profile.
*/}}
{{- define "upstash-exporter.checkPodAnnotations" -}}
{{- range $key, $value := .Values.podAnnotations -}}
{{- if and (hasPrefix "container.apparmor.security.beta.kubernetes.io/" $key) (not (or (eq $value "runtime/default") (hasPrefix "localhost/" $value))) -}}
{{- fail (printf "podAnnotations.%s: %s turns AppArmor off, which Pod Security baseline forbids; use runtime/default or localhost/<profile> (or podSecurityContext.appArmorProfile), or remove it" $key $value) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The pod's volumes from extraVolumes: the types the restricted profile allows, and names of their own.
*/}}
{{- define "upstash-exporter.checkVolumes" -}}
{{- $allowed := include "upstash-exporter.allowedVolumeTypes" . | fromJsonArray -}}
{{- $names := include "upstash-exporter.ownVolumes" . | fromJsonArray -}}
{{- range $i, $volume := .Values.extraVolumes -}}
{{- range $key, $_ := omit $volume "name" -}}
{{- if eq $key "hostPath" -}}
{{- fail (printf "extraVolumes[%d] (%s): hostPath mounts the node's filesystem, which Pod Security baseline forbids; use a configMap, secret, emptyDir or persistentVolumeClaim volume" $i $volume.name) -}}
{{- else if not (has $key $allowed) -}}
{{- fail (printf "extraVolumes[%d] (%s): a %s volume is not allowed by Pod Security restricted; use one of %s (a PersistentVolume behind a persistentVolumeClaim for other storage)" $i $volume.name $key (join ", " $allowed)) -}}
{{- end -}}
{{- end -}}
{{- if has $volume.name $names -}}
{{- fail (printf "extraVolumes[%d]: the name %s is taken (the chart's own volumes are %s, and each name is used once); rename it" $i $volume.name (join ", " (include "upstash-exporter.ownVolumes" $ | fromJsonArray))) -}}
{{- end -}}
{{- $names = append $names $volume.name -}}
{{- end -}}
{{- end -}}

{{/*
The names of the chart's own volumes (whether or not this rendering uses them: a name must not change
meaning with another value).
*/}}
{{- define "upstash-exporter.ownVolumes" -}}
{{- list "config" "credentials" "web-config" "tls" "tmp" | toJson -}}
{{- end -}}

{{/*
The exporter container's own mount paths, normalised.
*/}}
{{- define "upstash-exporter.ownMountPaths" -}}
{{- $secret := include "upstash-exporter.mountPath" (dict "path" "secret.mountPath" "value" .Values.secret.mountPath) -}}
{{- list "/etc/upstash-exporter/config" $secret "/etc/upstash-exporter/web" "/etc/upstash-exporter/tls" "/tmp" | toJson -}}
{{- end -}}

{{/*
A mount path as the container runtime reads it, so that paths are compared as paths and not as text:
`//`, `/./`, `/../` and a trailing `/` resolved (`/etc//x/../y/` is `/etc/y`). A relative path is
refused: a mount point is absolute. Takes (dict path value); renders the path.
*/}}
{{- define "upstash-exporter.mountPath" -}}
{{- $value := toString .value -}}
{{- if not (isAbs $value) -}}
{{- fail (printf "%s: %s is a relative path; a mount path is absolute, like /etc/extra" .path $value) -}}
{{- end -}}
{{- clean $value -}}
{{- end -}}

{{/*
"true" when the normalised mount paths `a` and `b` are one, or one lies inside the other. Takes (dict a b).
*/}}
{{- define "upstash-exporter.nested" -}}
{{- $a := printf "%s/" (trimSuffix "/" .a) -}}
{{- $b := printf "%s/" (trimSuffix "/" .b) -}}
{{- if or (hasPrefix $a $b) (hasPrefix $b $a) -}}true{{- end -}}
{{- end -}}

{{/*
Mounts of one container: each names a volume of the pod and a path of its own, neither one already
mounted nor inside one of the chart's (a read-only volume, or the chart's files hidden). Takes (dict path
mounts volumes own) where own is the chart's paths in that container.
*/}}
{{- define "upstash-exporter.checkMounts" -}}
{{- $paths := .own -}}
{{- range $i, $mount := .mounts -}}
{{- $at := printf "%s[%d]" $.path $i -}}
{{- if not (has $mount.name $.volumes) -}}
{{- fail (printf "%s: no volume is named %s (the API refuses the pod); add it to extraVolumes, or mount one of %s" $at $mount.name (join ", " $.volumes)) -}}
{{- end -}}
{{- $path := include "upstash-exporter.mountPath" (dict "path" (printf "%s.mountPath" $at) "value" $mount.mountPath) -}}
{{- range $taken := $paths -}}
{{- /* Inside one of the chart's mounts: a read-only volume, or the chart's files hidden. */}}
{{- if or (eq $path $taken) (and (has $taken $.own) (hasPrefix (printf "%s/" (trimSuffix "/" $taken)) $path)) -}}
{{- fail (printf "%s: %s is already mounted at %s in this container (or lies inside it); mount it elsewhere, e.g. under /etc/extra" $at $path $taken) -}}
{{- end -}}
{{- end -}}
{{- $paths = append $paths $path -}}
{{- end -}}
{{- end -}}

{{/*
An extra container or init container: named apart from the others, its securityContext the chart's
hardening under the user's (which may not contradict what Pod Security restricted needs), no host port,
no probe or hook with host, and mounts of existing volumes. Takes (dict root path container names
volumes). Renders the container.
*/}}
{{- define "upstash-exporter.extraContainer" -}}
{{- $c := deepCopy .container -}}
{{- $path := .path -}}
{{- $context := deepCopy ($c.securityContext | default dict) -}}
{{- include "upstash-exporter.checkSecurityContext" (dict "path" (printf "%s.securityContext" $path) "context" $context) -}}
{{- include "upstash-exporter.checkPodSecurity" (dict "path" (printf "%s.securityContext" $path) "context" $context) -}}
{{- range $key, $want := dict "allowPrivilegeEscalation" false "privileged" false "runAsNonRoot" true -}}
{{- if and (hasKey $context $key) (ne (get $context $key) $want) -}}
{{- fail (printf "%s.securityContext.%s: must be %v (Pod Security restricted); remove it" $path $key $want) -}}
{{- end -}}
{{- $_ := set $context $key $want -}}
{{- end -}}
{{- if not (hasKey $context "readOnlyRootFilesystem") -}}
{{- $_ := set $context "readOnlyRootFilesystem" true -}}
{{- end -}}
{{- $capabilities := $context.capabilities | default dict -}}
{{- range $capability := $capabilities.add | default list -}}
{{- if ne $capability "NET_BIND_SERVICE" -}}
{{- fail (printf "%s.securityContext.capabilities.add: %s is not allowed by Pod Security restricted (only NET_BIND_SERVICE); remove it" $path $capability) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $capabilities "drop" (list "ALL") -}}
{{- $_ := set $context "capabilities" $capabilities -}}
{{- $_ := set $c "securityContext" $context -}}
{{- range $j, $port := $c.ports | default list -}}
{{- if $port.hostPort -}}
{{- fail (printf "%s.ports[%d].hostPort: opens a port on the node, which Pod Security baseline forbids; remove it (use a Service)" $path $j) -}}
{{- end -}}
{{- end -}}
{{- range $probe := list "livenessProbe" "readinessProbe" "startupProbe" -}}
{{- include "upstash-exporter.checkHandlerHost" (dict "path" (printf "%s.%s" $path $probe) "handler" (get $c $probe)) -}}
{{- end -}}
{{- range $hook := list "postStart" "preStop" -}}
{{- include "upstash-exporter.checkHandlerHost" (dict "path" (printf "%s.lifecycle.%s" $path $hook) "handler" (dig $hook dict ($c.lifecycle | default dict))) -}}
{{- end -}}
{{- include "upstash-exporter.checkMounts" (dict "path" (printf "%s.volumeMounts" $path) "mounts" ($c.volumeMounts | default list) "volumes" .volumes "own" list) -}}
{{- toYaml $c -}}
{{- end -}}

{{/*
The names of the pod's volumes: the chart's (those this rendering has) and extraVolumes'.
*/}}
{{- define "upstash-exporter.podVolumes" -}}
{{- $names := list "config" "tmp" -}}
{{- if include "upstash-exporter.hasSecret" . -}}{{- $names = append $names "credentials" -}}{{- end -}}
{{- if .Values.webConfig.enabled -}}{{- $names = append $names "web-config" -}}{{- end -}}
{{- if .Values.webConfig.tlsSecret -}}{{- $names = append $names "tls" -}}{{- end -}}
{{- range .Values.extraVolumes -}}{{- $names = append $names .name -}}{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{/*
The extra containers and init containers, rendered; their names unique in the pod.
Takes (dict root key) with key extraContainers or extraInitContainers.
*/}}
{{- define "upstash-exporter.extraContainers" -}}
{{- $root := .root -}}
{{- $volumes := include "upstash-exporter.podVolumes" $root | fromJsonArray -}}
{{- $names := list "exporter" -}}
{{- range $key := list "extraInitContainers" "extraContainers" -}}
{{- range $i, $c := get $root.Values $key -}}
{{- if has $c.name $names -}}
{{- fail (printf "%s[%d]: the container name %s is taken (exporter is the chart's; each name is used once in a pod); rename it" $key $i $c.name) -}}
{{- end -}}
{{- $names = append $names $c.name -}}
{{- end -}}
{{- end -}}
{{- $rendered := list -}}
{{- range $i, $c := get $root.Values .key -}}
{{- $rendered = append $rendered (include "upstash-exporter.extraContainer" (dict "path" (printf "%s[%d]" $.key $i) "container" $c "volumes" $volumes) | fromYaml) -}}
{{- end -}}
{{- with $rendered -}}{{- toYaml . -}}{{- end -}}
{{- end -}}
