{{/* Names, labels and the small computations several templates share. */}}

{{- define "smslice.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every resource name; suffixes like "-operator" must still fit in 63 characters. */}}
{{- define "smslice.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 45 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 45 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 45 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "smslice.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "smslice.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: smslice
{{- end }}

{{/* Selector labels of one component: (dict "root" $ "component" "operator"). */}}
{{- define "smslice.selectorLabels" -}}
app.kubernetes.io/name: {{ include "smslice.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "smslice.componentLabels" -}}
{{ include "smslice.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "smslice.operator.fullname" -}}
{{- printf "%s-operator" (include "smslice.fullname" .) }}
{{- end }}

{{- define "smslice.node.fullname" -}}
{{- printf "%s-node" (include "smslice.fullname" .) }}
{{- end }}

{{- define "smslice.operator.serviceAccountName" -}}
{{- default (include "smslice.operator.fullname" .) .Values.operator.serviceAccount.name }}
{{- end }}

{{- define "smslice.node.serviceAccountName" -}}
{{- default (include "smslice.node.fullname" .) .Values.node.serviceAccount.name }}
{{- end }}

{{/* The Service the webhook calls: its name is fixed by the project (smslice-operator). */}}
{{- define "smslice.operator.serviceName" -}}
smslice-operator
{{- end }}

{{- define "smslice.webhook.secretName" -}}
{{- if and (not .Values.certManager.enabled) .Values.webhook.certificate.existingSecret }}
{{- .Values.webhook.certificate.existingSecret }}
{{- else }}
{{- printf "%s-webhook-tls" (include "smslice.fullname" .) }}
{{- end }}
{{- end }}

{{- define "smslice.webhook.certificateName" -}}
{{- printf "%s-webhook" (include "smslice.fullname" .) }}
{{- end }}

{{/* image reference: (dict "root" $ "image" .Values.operator.image). */}}
{{- define "smslice.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) }}
{{- end }}


{{/* One named node config as written to the ConfigMap: configDefaults with the named one over it. */}}
{{- define "smslice.node.config" -}}
{{- $merged := mergeOverwrite (deepCopy .root.Values.node.configDefaults) (deepCopy (default dict .config)) }}
{{- toYaml $merged }}
{{- end }}

{{/* "true" when any named node config uses the mode .mode (default mode or an override): (dict "root" $ "mode" "mig"). */}}
{{- define "smslice.node.anyUses" -}}
{{- $any := false }}
{{- $mode := .mode }}
{{- range $name, $config := .root.Values.node.configs }}
{{- $merged := mergeOverwrite (deepCopy $.root.Values.node.configDefaults) (deepCopy (default dict $config)) }}
{{- if eq (toString $merged.gpus.defaultMode) $mode }}{{ $any = true }}{{ end }}
{{- range $merged.gpus.overrides }}
{{- if eq (toString .mode) $mode }}{{ $any = true }}{{ end }}
{{- end }}
{{- end }}
{{- $any }}
{{- end }}

{{/* An auto|true|false value resolved: (dict "root" $ "value" .Values.node.migMonitor "mode" "mig"). */}}
{{- define "smslice.node.autoForMode" -}}
{{- $v := toString .value }}
{{- if eq $v "auto" }}{{ include "smslice.node.anyUses" (dict "root" .root "mode" .mode) }}{{ else }}{{ $v }}{{ end }}
{{- end }}

{{/*
The chart-generated webhook certificate as a dict {ca, crt, key} of base64 PEM, or an empty dict
when the chart does not generate it. Made once per render and kept in .Values (shared by every
template of the chart), so the Secret, the webhook's caBundle and the pods' checksum agree.
Upgrades reuse the Secret already in the cluster (lookup), so the CA does not change under a
running API server.
*/}}
{{- define "smslice.webhook.generatedTls" -}}
{{- $v := .Values }}
{{- if and (not $v.certManager.enabled) $v.webhook.certificate.generate }}
{{- if not (hasKey $v "smsliceGeneratedTls") }}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (include "smslice.webhook.secretName" .) }}
{{- $data := default dict (get (default dict $secret) "data") }}
{{- if and (get $data "ca.crt") (get $data "tls.crt") (get $data "tls.key") }}
{{- $_ := set $v "smsliceGeneratedTls" (dict "ca" (get $data "ca.crt") "crt" (get $data "tls.crt") "key" (get $data "tls.key")) }}
{{- else }}
{{- $svc := include "smslice.operator.serviceName" . }}
{{- $fqdn := printf "%s.%s.svc" $svc .Release.Namespace }}
{{- $days := int $v.webhook.certificate.validityDays }}
{{- $ca := genCA "smslice-webhook-ca" $days }}
{{- $cert := genSignedCert $fqdn nil (list $svc (printf "%s.%s" $svc .Release.Namespace) $fqdn (printf "%s.cluster.local" $fqdn)) $days $ca }}
{{- $_ := set $v "smsliceGeneratedTls" (dict "ca" ($ca.Cert | b64enc) "crt" ($cert.Cert | b64enc) "key" ($cert.Key | b64enc)) }}
{{- end }}
{{- end }}
{{- toJson $v.smsliceGeneratedTls }}
{{- else }}
{{- toJson dict }}
{{- end }}
{{- end }}

{{- define "smslice.webhook.tlsChecksum" -}}
{{- $tls := include "smslice.webhook.generatedTls" . | fromJson }}
{{- if $tls.crt }}{{ $tls.crt | sha256sum }}{{ end }}
{{- end }}
