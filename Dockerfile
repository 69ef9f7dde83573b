# Errata as a container: one process on SQLite in /data by default, or DATABASE_URL=postgres://…
# Not built in this project's CI (its machines have no Docker engine); kept minimal on purpose.

# --- build: compile better-sqlite3, build Next.js and the bundled server, then drop dev packages
FROM node:22-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- run: no compiler, no dev packages, not root
FROM node:22-bookworm-slim
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 PORT=9000 DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 9000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||9000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Set PUBLIC_URL to the address users and SDKs reach (DSNs and links are built from it).
# The bin's shebang carries the Node flags and MALLOC_ARENA_MAX (one copy of them, shared with `npm run errata`).
CMD ["bin/errata.mjs", "start"]
