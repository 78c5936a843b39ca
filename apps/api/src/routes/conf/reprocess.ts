import { reprocessMeeting } from '@cfaq/core';
import { problemResponses } from '../../lib/problem.js';
import { IdParams } from '../../lib/schemas.js';
import type { App } from '../../lib/types.js';
import { Meeting } from './schemas.js';

/**
 * Re-processing a meeting has two addresses in the spec (`POST /conf/meetings/:id/transcript` and
 * `POST /knowledge/process-meeting/:id`): one operation, mounted by each group under its own tag.
 */
export function reprocessMeetingRoute(app: App, url: string, tags: string[], summary: string): void {
  app.post(
    url,
    {
      config: { access: 'admin' },
      schema: { tags, summary, params: IdParams, response: { 202: Meeting, ...problemResponses(404, 409) } },
    },
    async (request, reply) => reply.status(202).send(await reprocessMeeting(app.ctx, request.params.id)),
  );
}
