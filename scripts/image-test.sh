#!/usr/bin/env bash
# Builds the project's Docker image with podman and proves that it runs:
#   - /metrics answers from inside the container in demo mode (and /healthz for the HEALTHCHECK),
#   - the process runs as a non-root user,
#   - SIGTERM stops it with exit code 0,
#   - its OCI labels and --version say package.json's version and this checkout's commit.
# No registry is reachable here, so the Node base image is made locally (debootstrap + this machine's
# node and npm) and passed to the Dockerfile through its NODE_IMAGE build argument; see
# ../shared/notes/containers.md. The root filesystem and the base image are cached, so a second run only
# rebuilds the project image.
#
# Env: UPSTASH_EXPORTER_BASE_DIR (cache folder, default /var/tmp/upstash-exporter-base),
#      BASE_TAG (default localhost/upstash-exporter-base:node-<this machine's node version>),
#      IMAGE_TAG (default localhost/upstash-exporter:test), KEEP_IMAGE=1 to keep the project image (and
#      the build stages' layers, which the next build reuses).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

BASE_DIR=${UPSTASH_EXPORTER_BASE_DIR:-/var/tmp/upstash-exporter-base}
IMAGE_TAG=${IMAGE_TAG:-localhost/upstash-exporter:test}
CONTAINER=upstash-exporter-image-test-$$
START_TIMEOUT=60

ensure_packages podman runc debootstrap
command -v node >/dev/null || fail "node is needed on the host (its binary goes into the base image)"

mkdir -p "$BASE_DIR"
# Podman settings that work on these machines (no systemd cgroups, no ulimit defaults).
export CONTAINERS_CONF="$BASE_DIR/containers.conf"
cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
EOF
pm() { podman --runtime runc "$@"; }

NODE_VERSION=$(node --version)
BASE_TAG=${BASE_TAG:-"localhost/upstash-exporter-base:node-${NODE_VERSION#v}"}

# --- 1. the base image ---------------------------------------------------------------------------
build_base_image() {
  local rootfs="$BASE_DIR/rootfs"
  if [ ! -f "$rootfs/.debootstrap-complete" ]; then
    local mirror
    mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    mirror=${mirror:-http://deb.debian.org/debian}
    log "debootstrap bookworm (minbase) from $mirror into $rootfs"
    as_root rm -rf "$rootfs.tmp"
    as_root debootstrap --variant=minbase bookworm "$rootfs.tmp" "$mirror" >"$BASE_DIR/debootstrap.log" 2>&1 ||
      {
        tail -20 "$BASE_DIR/debootstrap.log" >&2
        fail "debootstrap failed (log: $BASE_DIR/debootstrap.log)"
      }
    as_root rm -rf "$rootfs.tmp/var/cache/apt/archives"/*.deb "$rootfs.tmp/var/lib/apt/lists"/*
    touch "$rootfs.tmp/.debootstrap-complete"
    as_root rm -rf "$rootfs"
    as_root mv "$rootfs.tmp" "$rootfs"
  else
    log "reusing the cached root filesystem in $rootfs"
  fi

  log "copying this machine's node $NODE_VERSION and npm into the base image"
  local npm_dir
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  as_root rm -rf "$rootfs/usr/local/lib/node_modules/npm"
  as_root mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules" "$rootfs/etc/ssl/certs"
  as_root cp "$(readlink -f "$(command -v node)")" "$rootfs/usr/local/bin/node"
  as_root cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  as_root ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  as_root ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  as_root cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"

  cat >"$BASE_DIR/Containerfile" <<'EOF'
FROM scratch
COPY rootfs/ /
ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF
  log "building the base image $BASE_TAG"
  pm build --network host --pull=never -f "$BASE_DIR/Containerfile" -t "$BASE_TAG" "$BASE_DIR" >"$BASE_DIR/base-build.log" 2>&1 ||
    {
      tail -30 "$BASE_DIR/base-build.log" >&2
      fail "building the base image failed"
    }
}

if pm image exists "$BASE_TAG"; then
  log "reusing the base image $BASE_TAG"
else
  build_base_image
fi

# --- 2. the project image --------------------------------------------------------------------------
cleanup() {
  pm rm -f -t 0 "$CONTAINER" >/dev/null 2>&1 || true
  if [ "${KEEP_IMAGE:-0}" != 1 ]; then
    pm rmi -f "$IMAGE_TAG" >/dev/null 2>&1 || true
    # The build stages' untagged images: without this, every run with changed sources leaves ~700 MB.
    pm image prune -f >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

log "building the project image $IMAGE_TAG from Dockerfile (NODE_IMAGE=$BASE_TAG)"
# docker format: the OCI format has no HEALTHCHECK and podman would drop it.
started=$SECONDS
mapfile -t label_args < <(bash scripts/image-build-args.sh)
pm build --network host --pull=never --format docker --build-arg "NODE_IMAGE=$BASE_TAG" "${label_args[@]}" -t "$IMAGE_TAG" . ||
  fail "podman build failed"
log "project image built in $((SECONDS - started)) s"

# The labels and the program inside say package.json's version and this checkout's commit.
version=$(node -p "require('./package.json').version")
revision=$(node scripts/build-info.mjs --print)
label() { pm image inspect --format "{{index .Config.Labels \"org.opencontainers.image.$1\"}}" "$IMAGE_TAG"; }
[ "$(label version)" = "$version" ] || fail "org.opencontainers.image.version is '$(label version)', not $version"
[ "$(label revision)" = "$revision" ] || fail "org.opencontainers.image.revision is '$(label revision)', not $revision"
said=$(pm run --rm --network none "$IMAGE_TAG" --version | head -1)
[ "$said" = "upstash-exporter, version $version (revision: $revision)" ] ||
  fail "--version in the image says '$said'"
log "labels and --version: $version, revision $revision"

user=$(pm image inspect --format '{{.Config.User}}' "$IMAGE_TAG")
log "image USER is '$user'"
case "${user%%:*}" in
  "" | 0 | root) fail "the image runs as root (USER '$user')" ;;
esac
healthcheck=$(pm image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE_TAG" 2>/dev/null || true)
case "$healthcheck" in
  *'"Test":["CMD"'*) log "image HEALTHCHECK: $healthcheck" ;;
  *) fail "the image has no exec-form HEALTHCHECK (got: ${healthcheck:-nothing})" ;;
esac
env_url=$(pm image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$IMAGE_TAG" |
  sed -n 's/^UPSTASH_EXPORTER_HEALTHCHECK_URL=//p')
case "$env_url" in
  */healthz) log "the HEALTHCHECK asks $env_url" ;;
  *) fail "UPSTASH_EXPORTER_HEALTHCHECK_URL in the image is '$env_url', expected a /healthz URL" ;;
esac

# --- 3. run it in demo mode ------------------------------------------------------------------------
PORT=$(free_port)
log "starting $CONTAINER in demo mode on 127.0.0.1:$PORT"
# --no-healthcheck: podman would schedule the HEALTHCHECK through systemd timers, which are not here; the
# command is run by hand below instead.
pm run -d --no-healthcheck --name "$CONTAINER" --network host "$IMAGE_TAG" --demo --web.listen-address "127.0.0.1:$PORT" >/dev/null

# in_container URL: GET URL with node inside the container (slim images have no curl); prints the body,
# fails unless the status is 200.
in_container() {
  pm exec "$CONTAINER" node -e '
    fetch(process.argv[1]).then(async (r) => {
      const body = await r.text();
      // Exit once the pipe has taken the body: an exit right after write() cuts a large one short.
      process.stdout.write(body, () => process.exit(r.status === 200 ? 0 : 1));
    }, (e) => { console.error(String(e)); process.exit(1); });' "$1"
}

deadline=$((SECONDS + START_TIMEOUT))
until in_container "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; do
  if [ "$(pm inspect --format '{{.State.Running}}' "$CONTAINER")" != true ]; then
    pm logs "$CONTAINER" >&2 || true
    fail "the container exited before it was ready"
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    pm logs "$CONTAINER" >&2 || true
    fail "/readyz did not answer 200 within ${START_TIMEOUT}s"
  fi
  sleep 1
done
log "/readyz answers 200"

metrics=$(in_container "http://127.0.0.1:$PORT/metrics") || fail "/metrics did not answer 200 from inside the container"
for name in upstash_up upstash_exporter_build_info upstash_qstash_flow_control_wait_list_size upstash_redis_keys; do
  grep -q "^$name{" <<<"$metrics" || fail "/metrics from inside the container has no $name series"
done
grep -q '^upstash_up{.*} 1$' <<<"$metrics" || fail "no source is up in demo mode"
log "/metrics answers from inside the container ($(grep -c -v '^#' <<<"$metrics") samples)"
in_container "http://127.0.0.1:$PORT/healthz" >/dev/null || fail "/healthz did not answer 200"

uid=$(pm exec "$CONTAINER" id -u)
[ "$uid" != 0 ] || fail "the process runs as root inside the container"
# shellcheck disable=SC2016 # $2 is awk's
pid1_uid=$(pm exec "$CONTAINER" awk '/^Uid:/ { print $2 }' /proc/1/status)
[ "$pid1_uid" != 0 ] || fail "PID 1 runs as root inside the container"
pid1=$(pm exec "$CONTAINER" cat /proc/1/cmdline | tr '\0' ' ')
log "runs as uid $uid; PID 1 is: $pid1"
case "$pid1" in
  node*) ;;
  *) fail "PID 1 is not node itself ($pid1), so signals would not reach it" ;;
esac

# The image's own HEALTHCHECK command, run once by hand (podman's health timers need systemd). It targets
# the default port; point it at the demo's port through the variable the Dockerfile documents.
mapfile -d '' hc_cmd < <(node -e '
  const t = JSON.parse(process.argv[1]).Test;
  if (t[0] !== "CMD") { console.error("HEALTHCHECK is not in exec form: " + JSON.stringify(t)); process.exit(1); }
  process.stdout.write(t.slice(1).join("\0") + "\0");' "$healthcheck")
[ "${#hc_cmd[@]}" -gt 0 ] || fail "could not read the HEALTHCHECK command"
pm exec -e "UPSTASH_EXPORTER_HEALTHCHECK_URL=http://127.0.0.1:$PORT/healthz" "$CONTAINER" "${hc_cmd[@]}" ||
  fail "the HEALTHCHECK command failed against a healthy exporter"
log "the HEALTHCHECK command passes"
if pm exec -e "UPSTASH_EXPORTER_HEALTHCHECK_URL=http://127.0.0.1:$(free_port)/healthz" "$CONTAINER" "${hc_cmd[@]}" 2>/dev/null; then
  fail "the HEALTHCHECK command passed with nothing listening"
fi

# --- 4. SIGTERM -----------------------------------------------------------------------------------
log "sending SIGTERM"
pm kill --signal TERM "$CONTAINER" >/dev/null
code=$(timeout 30 podman --runtime runc wait "$CONTAINER" | tail -1) || fail "the container did not stop within 30 s of SIGTERM"
if [ "$code" != 0 ]; then
  pm logs "$CONTAINER" >&2 || true
  fail "exit code after SIGTERM was $code, expected 0"
fi
log "SIGTERM: exit code 0"

echo "image-test: all checks passed"
