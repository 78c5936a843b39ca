import type { CoreContext } from '@cfaq/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: CoreContext;
  }
}

export const contextPlugin = fp(
  async (app: FastifyInstance, opts: { ctx: CoreContext }) => {
    app.decorate('ctx', opts.ctx);
  },
  { name: 'context' },
);
