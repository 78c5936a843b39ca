import type { OutgoingHttpHeaders } from 'node:http';
import {
  NotificationHub,
  STREAM_RECHECK_MAX_MS,
  STREAM_RECHECK_MIN_MS,
  type StreamCursor,
  streamAfter,
  streamCursor,
  streamStillOpen,
} from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import type { RoutePlugin } from '../../lib/types.js';
import { StreamQuery } from './schemas.js';

/**
 * GET /notifications/stream: server-sent events. Each new notification of the caller is an event
 * `notification` with the notification as data and its id as the event id; each new tea drop they see
 * (personal, or program-wide in any program and of a kind they have on) an event `tea` with the drop as
 * data and `tea:<id>` as the event id. Both form one sequence, in the order of the writing transactions' ids (a row is sent
 * once every earlier write transaction has ended, so none can land behind what was sent), and a
 * browser reconnecting with Last-Event-ID gets what it missed of both (up to 100 at a time). A comment
 * line every NOTIFICATION_STREAM_HEARTBEAT_MS keeps proxies from closing the connection.
 */
export const notificationStream: RoutePlugin = async (app) => {
  const { ctx } = app;
  const hub = new NotificationHub(ctx.config.DATABASE_URL, ctx.log, ctx.config.NOTIFICATION_STREAM_POLL_MS);
  const open = new Set<() => void>();
  // Open streams end when the app closes (server.close would otherwise wait for them).
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });
  app.addHook('onClose', async () => hub.stop());

  app.get(
    '/notifications/stream',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary: 'My new notifications and tea drops as server-sent events',
        description:
          'text/event-stream. Events: `notification` (data: the notification JSON, id: its id) and `tea` (data: the tea drop JSON, ' +
          'id: `tea:<id>`; your personal drops and the program-wide drops of every program, but for kinds you switched off). One sequence in commit-safe order: an event ' +
          'is sent once every write transaction that began writing before it has ended, so none is skipped. Send Last-Event-ID (either kind) ' +
          'to resume after it; without it only events committed after connecting are sent. Delivered across API processes through ' +
          'PostgreSQL LISTEN/NOTIFY, typically within a second of the commit (the embedded database falls back to the poll interval, ' +
          'NOTIFICATION_STREAM_POLL_MS); a write transaction of this database left open holds later events until it ends. ' +
          'Heartbeat: a `: heartbeat` comment every NOTIFICATION_STREAM_HEARTBEAT_MS. A client that cannot set the header ' +
          '(a fetch from another origin may, EventSource may not on its first connection) sends `?lastEventId=` instead.',
        querystring: StreamQuery,
        produces: ['text/event-stream'],
        response: { 200: { type: 'string', description: 'event stream' } },
      },
    },
    async (request, reply) => {
      const userId = signedIn(request).id;
      const lastHeader = request.headers['last-event-id'];
      const given =
        typeof lastHeader === 'string' && lastHeader.trim() !== '' ? lastHeader : (request.query as { lastEventId?: string }).lastEventId;
      const last = given?.trim() || null;
      let cursor: StreamCursor | null = await streamCursor(ctx, userId, last);

      // Taken over from fastify, the answer keeps what the hooks put in fastify's header store: the
      // CORS headers a browser app on another origin needs to read the stream, and helmet's.
      const hooked = reply.getHeaders() as OutgoingHttpHeaders;
      reply.hijack();
      const res = reply.raw;
      // A client gone before this point (during the auth hooks or the cursor's read) emitted its 'close'
      // before the listeners below exist, and never will again: such a stream would be woken by the hub
      // and write heartbeats for the life of the process. From here to the listeners nothing awaits, so
      // a close is either seen now or heard by them.
      if (request.raw.destroyed || res.destroyed || request.raw.socket.destroyed) {
        res.end();
        return;
      }
      res.writeHead(200, {
        ...hooked,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': request.id,
      });
      // HEAD: the stream's status and headers, and no stream (a body written to a HEAD answer is dropped,
      // so it would only hold the connection and a subscriber open).
      if (request.method === 'HEAD') {
        res.end();
        return;
      }
      res.write(`retry: 3000\n: connected\n\n`);

      let closed = false;
      let busy = false;
      let again = false;
      // Rows held back behind an open transaction: read again soon, then less often while they stay held.
      let recheck: NodeJS.Timeout | null = null;
      let recheckMs = STREAM_RECHECK_MIN_MS;
      const pump = async () => {
        if (closed) return;
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        try {
          do {
            again = false;
            // Suspended or deleted since the stream opened: it ends (a reconnect gets the 403 or 401).
            if (!(await streamStillOpen(ctx, userId))) {
              close();
              return;
            }
            const batch = await streamAfter(ctx, userId, cursor);
            for (const e of batch.events) {
              if (closed) return;
              const data = e.kind === 'notification' ? e.notification : e.tea;
              res.write(`id: ${e.eventId}\nevent: ${e.kind}\ndata: ${JSON.stringify(data)}\n\n`);
              cursor = e.cursor;
            }
            cursor = batch.cursor;
            if (batch.more) again = true;
            if (!batch.held) recheckMs = STREAM_RECHECK_MIN_MS;
            else if (!recheck && !closed) {
              recheck = setTimeout(() => {
                recheck = null;
                void pump();
              }, recheckMs);
              recheckMs = Math.min(recheckMs * 2, STREAM_RECHECK_MAX_MS);
            }
          } while (again && !closed);
        } catch (err) {
          request.log.warn({ err }, 'notification stream read failed');
        } finally {
          busy = false;
        }
      };

      const unsubscribe = hub.subscribe(userId, () => void pump());
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.config.NOTIFICATION_STREAM_HEARTBEAT_MS);
      const close = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        if (recheck) clearTimeout(recheck);
        unsubscribe();
        open.delete(close);
        res.end();
      };
      request.raw.on('close', close);
      res.on('close', close);
      open.add(close);
      // With a resumed cursor this sends the gap at once; otherwise it finds nothing new yet.
      void pump();
    },
  );
};
