{{/*
The scrape settings of the ServiceMonitor's endpoint and the PodMonitor's podMetricsEndpoint: both from
serviceMonitor.*.
*/}}
{{- define "upstash-exporter.scrapeEndpoint" -}}
{{- $tls := include "upstash-exporter.tls" . -}}
{{- $monitor := .Values.serviceMonitor -}}
path: /metrics
scheme: {{ $monitor.scheme | default (ternary "https" "http" (eq $tls "true")) | quote }}
interval: {{ $monitor.interval | quote }}
scrapeTimeout: {{ $monitor.scrapeTimeout | quote }}
honorLabels: {{ $monitor.honorLabels }}
{{- with $monitor.tlsConfig }}
tlsConfig:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $monitor.basicAuth }}
basicAuth:
  {{- toYaml . | nindent 2 }}
{{- end }}
relabelings:
  # The alert rules select this job (serviceMonitor.jobName).
  - action: replace
    targetLabel: job
    replacement: {{ $monitor.jobName | quote }}
  {{- with $monitor.relabelings }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with $monitor.metricRelabelings }}
metricRelabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
The limits and copied labels both monitors share (their spec, not their endpoint).
*/}}
{{- define "upstash-exporter.scrapeLimits" -}}
{{- $monitor := .Values.serviceMonitor -}}
{{- with $monitor.podTargetLabels }}
podTargetLabels:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if gt (int $monitor.sampleLimit) 0 }}
sampleLimit: {{ $monitor.sampleLimit | int }}
{{- end }}
{{- if gt (int $monitor.labelLimit) 0 }}
labelLimit: {{ $monitor.labelLimit | int }}
{{- end }}
{{- end -}}
