#!/usr/bin/env bash
# Prints the Dockerfile's build arguments that label the image (OCI labels) for this checkout:
#   docker build $(bash scripts/image-build-args.sh) -t upstash-exporter:0.5.0 .
# VERSION is package.json's (the Dockerfile refuses any other), REVISION the commit the program's
# build-info carries (scripts/build-info.mjs), SOURCE the repository's https URL when origin has one
# (credentials in it left out); empty otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version=$(node -p "require('./package.json').version")
revision=$(node scripts/build-info.mjs --print)
source_url=$(git remote get-url origin 2>/dev/null || true)
case "$source_url" in
  git@*:*) rest=${source_url#git@} && source_url="https://${rest%%:*}/${rest#*:}" ;;
esac
case "$source_url" in
  https://*) rest=${source_url#https://} && rest=${rest#*@} && source_url="https://${rest%.git}" ;;
  *) source_url="" ;;
esac
printf '%s\n' --build-arg "VERSION=$version" --build-arg "REVISION=$revision" --build-arg "SOURCE=$source_url"
