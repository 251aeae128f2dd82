{{/*
The objects of one bundled file, a stream of YAML documents read from files/ (copies of
crds/ and deploy/, the files `kubectl webservice install` bundles: npm run chart:files), as a
JSON list. Each is labelled with the chart's appVersion under webservice.labhub.io/version, as
install labels it. Usage:
  fromJsonArray (include "webservice-controller.objects" (list . "files/10-rbac.yaml"))
*/}}
{{- define "webservice-controller.objects" -}}
{{- $root := index . 0 -}}
{{- $file := index . 1 -}}
{{- $text := $root.Files.Get $file -}}
{{- if not $text -}}
{{- fail (printf "%s is missing or empty: files/ holds copies of crds/ and deploy/ (npm run chart:files makes them)" $file) -}}
{{- end -}}
{{- $objects := list -}}
{{- range $doc := splitList "\n---\n" $text -}}
{{- $object := fromYaml $doc -}}
{{- if hasKey $object "Error" -}}
{{- fail (printf "%s: %s" $file $object.Error) -}}
{{- end -}}
{{- if $object.kind -}}
{{- $labels := default dict $object.metadata.labels -}}
{{- $_ := set $labels "webservice.labhub.io/version" $root.Chart.AppVersion -}}
{{- $_ := set $object.metadata "labels" $labels -}}
{{- $objects = append $objects $object -}}
{{- end -}}
{{- end -}}
{{- toJson $objects -}}
{{- end -}}

{{/* Prints objects as a YAML stream. Usage: include "webservice-controller.print" $objects */}}
{{- define "webservice-controller.print" -}}
{{- range . }}
---
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The labels of the objects the chart adds to deploy/'s (the metrics Service, ServiceMonitor, PrometheusRule). */}}
{{- define "webservice-controller.labels" -}}
app.kubernetes.io/name: webservice-controller
app.kubernetes.io/part-of: webservice
webservice.labhub.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
