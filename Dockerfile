# One image for the API, the worker and the one-shot migrator (compose picks the command).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json .npmrc ./
COPY apps/api/package.json apps/api/package.json
COPY apps/worker/package.json apps/worker/package.json
COPY packages/core/package.json packages/core/package.json
COPY packages/db/package.json packages/db/package.json
COPY packages/testkit/package.json packages/testkit/package.json
# npm ci: exactly the lock file (which lists every platform's optional binaries, so it is complete).
RUN npm ci --no-audit --no-fund --include=dev
COPY . .
USER node
EXPOSE 3000
# node itself is PID 1 and gets SIGTERM (no npm or shell in between); tsx is an in-process loader.
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
