import { createSearchService, type SearchService } from '@cfaq/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The search service: result cache and buffered search log, one per app. */
    searchService: SearchService;
  }
}

/** Creates the search service; closing the app flushes the search log (SIGTERM loses no entry). */
export const searchPlugin = fp(
  async (app: FastifyInstance) => {
    const search = createSearchService(app.ctx);
    app.decorate('searchService', search);
    // Written as the shutdown begins, so a stop forced later (requests that outlive it) loses only the
    // searches still in flight; onClose writes those once they have ended.
    app.addHook('preClose', async () => {
      await search.logs.flush();
    });
    app.addHook('onClose', async () => {
      await search.close();
    });
  },
  { name: 'search', dependencies: ['context'] },
);
