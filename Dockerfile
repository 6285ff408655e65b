# syntax=docker/dockerfile:1
# upstash-exporter: a Prometheus exporter for Upstash (QStash and Redis statistics).
#
#   docker build -t upstash-exporter .
#   docker run --rm -p 9645:9645 -e QSTASH_TOKEN=... upstash-exporter
#   docker run --rm -p 9645:9645 upstash-exporter --demo --web.listen-address :9645
#
# The base image is an argument so that a mirror or a locally built Node image can stand in for it.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: all dependencies, compile TypeScript into dist/ ------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src/ ./src/
RUN npm run build

# --- deps: production dependencies only ---------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would run tsc, which is a dev dependency; dist/ comes from the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    UPSTASH_EXPORTER_HEALTHCHECK_URL=http://127.0.0.1:9645/healthz
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
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
