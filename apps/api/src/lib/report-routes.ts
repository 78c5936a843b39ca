import type { CoreContext } from '@cfaq/core';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Access } from './access.js';
import { problemResponses } from './problem.js';
import type { App } from './types.js';

/** One read-only report: a GET whose query narrows a range or program and whose answer is one core call. */
export interface Report<Q extends TSchema, R extends TSchema> {
  url: string;
  summary: string;
  description: string;
  query: Q;
  response: R;
  run: (ctx: CoreContext, query: Static<Q>) => Promise<Static<R>>;
}

/** Declares a report with its types checked, for the list `reportRoutes` mounts. */
export const report = <Q extends TSchema, R extends TSchema>(r: Report<Q, R>): Report<TSchema, TSchema> =>
  r as unknown as Report<TSchema, TSchema>;

/**
 * Mounts a list of reports (analytics, admin dashboards) at one access level. Each answers 200 or 404
 * (an unknown program); 400, 401, 403 and 429 come from the registration hook. `scopeDoc` ends every
 * description: who may call and what batchId does.
 */
export function reportRoutes(
  app: App,
  opts: { access: Access; tags: string[]; scopeDoc: string },
  reports: Report<TSchema, TSchema>[],
): void {
  for (const r of reports) {
    app.get(
      r.url,
      {
        config: { access: opts.access },
        schema: {
          tags: opts.tags,
          summary: r.summary,
          description: `${r.description} ${opts.scopeDoc}`,
          querystring: r.query,
          response: { 200: r.response, ...problemResponses(404) },
        },
      },
      async (request) => r.run(app.ctx, request.query),
    );
  }
}
