# One image for the API, the worker and the one-shot migrator (compose picks the command). It runs
# compiled JavaScript with node itself as PID 1: no npm, shell, tsx or type checker in the signal path.

# Build: the full dependency tree from the lock file, the JavaScript build, then only production packages.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY apps/api/package.json apps/api/package.json
COPY apps/worker/package.json apps/worker/package.json
COPY packages/core/package.json packages/core/package.json
COPY packages/db/package.json packages/db/package.json
COPY packages/testkit/package.json packages/testkit/package.json
# npm ci: exactly the lock file (which lists every platform's optional binaries, so it is complete).
RUN npm ci --no-audit --no-fund --include=dev
COPY . .
# build:dist transpiles each package's src/ to dist/ beside it (scripts/build-dist.ts); the sources,
# tests, benchmarks and dev tools are then dropped.
RUN npm run build:dist \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf apps/*/src apps/*/test packages/*/src packages/*/test bench scripts .ci

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
USER node
EXPOSE 3000
# --conditions=dist: every @cfaq package resolves to its compiled dist/ (see their package.json exports).
CMD ["node", "--conditions=dist", "--import", "./packages/db/drizzle-resolve-hook.mjs", "apps/api/dist/main.js"]
