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
RUN npm install --no-audit --no-fund --include=dev
COPY . .
USER node
EXPOSE 3000
CMD ["npm", "run", "start:api"]
