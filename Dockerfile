# syntax=docker/dockerfile:1
# upstash-exporter: a Prometheus exporter for Upstash (QStash and Redis statistics).
#
#   docker build $(bash scripts/image-build-args.sh) -t upstash-exporter:0.5.0 .
#   docker run --rm -p 9645:9645 -e QSTASH_TOKEN=... upstash-exporter
#   docker run --rm -p 9645:9645 upstash-exporter --demo --web.listen-address :9645
#
# The base image is an argument so that a mirror or a locally built Node image can stand in for it.
# VERSION, REVISION and SOURCE label the image (OCI annotations); scripts/image-build-args.sh gives them
# for the checkout: package.json's version, the git commit, the repository. A plain `docker build .`
# labels them "unknown" (and empty), as a build outside git is; the program still knows its version.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG VERSION=unknown
ARG REVISION=unknown
ARG SOURCE=

# --- build: all dependencies, compile TypeScript into dist/ ------------------------------------------
FROM ${NODE_IMAGE} AS build
ARG VERSION
ARG REVISION
WORKDIR /app
COPY package.json package-lock.json ./
# package.json is the one source of the version: a label that says another would lie.
RUN node -e 'const v = require("./package.json").version; const a = process.argv[1]; \
      if (a !== "unknown" && a !== v) { console.error(`VERSION ${a} is not the version in package.json, ${v}`); process.exit(1); }' "$VERSION"
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-info.mjs ./scripts/
COPY src/ ./src/
# No .git here: the commit comes in as REVISION, for --version and upstash_exporter_build_info.
RUN BUILD_REVISION="$REVISION" npm run build && find dist -name '*.map' -delete

# --- deps: production dependencies only ---------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would run tsc, which is a dev dependency; dist/ comes from the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
ARG VERSION
ARG REVISION
ARG SOURCE
LABEL org.opencontainers.image.title="upstash-exporter" \
      org.opencontainers.image.description="Prometheus exporter for Upstash: QStash, Redis, Vector and Search" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
# No allocator tuning: the image runs the program as `node dist/main.js` does. glibc's malloc tunables
# (a fixed mmap threshold, one arena) held less memory but cost more than a tenth of the one-client
# p99 against a bare server (BENCHMARKS.md, "Designs tried for each byte held once"); an image that
# needs no tuning was the goal. An operator may still set them (docs/operations.md, Memory).
ENV NODE_ENV=production \
    UPSTASH_EXPORTER_HEALTHCHECK_URL=http://127.0.0.1:9645/healthz
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# Only what runs, as in the npm package (package.json's "files"): the source maps went with the sources.
COPY --from=build /app/dist ./dist
COPY package.json LICENSE ./
# Files stay owned by root (read-only for the process). 1000 is the `node` user of the official image;
# numeric so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 9645
# Slim images have no curl: node itself asks /healthz. Change UPSTASH_EXPORTER_HEALTHCHECK_URL when the
# exporter listens elsewhere.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.UPSTASH_EXPORTER_HEALTHCHECK_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM/SIGINT itself (clean shutdown, exit 0).
# Flags given to `docker run IMAGE ...` are passed to the exporter.
ENTRYPOINT ["node", "dist/main.js"]
CMD []
