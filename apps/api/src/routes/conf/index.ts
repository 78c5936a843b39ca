import {
  AppError,
  acceptRecordingEvent,
  appError,
  backfillRecordings,
  Code,
  completeConfConnect,
  confConnection,
  confHealth,
  confPublicStats,
  convertInsightToFaq,
  getMeeting,
  handleConfWebhook,
  invalidField,
  listInsights,
  listMeetings,
  startConfConnect,
  updateInsight,
  uploadTranscript,
} from '@cfaq/core';
import multipart from '@fastify/multipart';
import { Type as T } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { actorOf, signedIn } from '../../lib/actor.js';
import { utf8File } from '../../lib/body-encoding.js';
import { problemResponses } from '../../lib/problem.js';
import { type BodyValidator, compileBodyValidator, compilePartValidator } from '../../lib/schema-compilers.js';
import { BatchQuery, IdParams, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { reprocessMeetingRoute } from './reprocess.js';
import {
  BackfillQuery,
  BackfillResult,
  CallbackQuery,
  Connection,
  ConnectQuery,
  ConnectStart,
  ConvertBody,
  ConvertResult,
  Health,
  Insight,
  ListInsightsQuery,
  ListMeetingsQuery,
  Meeting,
  MeetingDetail,
  PublicStats,
  RecordingEventBody,
  UpdateInsightBody,
  UploadJsonBody,
  UploadMultipartBody,
  UploadResult,
  WebhookAnswer,
} from './schemas.js';

const tags = ['conf'];

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** The multipart form's text fields (the file is read apart), and the JSON form: each checked by hand. */
const validateMultipartFields = compileBodyValidator(T.Omit(UploadMultipartBody, ['file'], { additionalProperties: false }));
const validateJsonUpload = compileBodyValidator(UploadJsonBody);

/** A body checked by hand fails as a schema-checked one does: a 400 naming each field, from the error handler. */
function checkBody(validate: BodyValidator, value: unknown): void {
  if (validate(value)) return;
  throw Object.assign(new Error('body is invalid'), { statusCode: 400, validation: validate.errors ?? [], validationContext: 'body' });
}

/**
 * The meeting-provider integration. Every route is admin-only (the spec: protect + authorize(admin))
 * except GET /conf/public-stats (public), the OAuth callback (public: the provider's redirect brings
 * the browser without a token, and the OAuth state names the admin) and POST /conf/webhook
 * (authenticated by the provider's signature instead of a token).
 */
export const confRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  // files: 2, though the upload takes one: the parser's own limit error does not say which field went
  // over it, so a second file is let through to the route, which refuses it naming its field.
  await app.register(multipart, {
    limits: { fileSize: ctx.config.UPLOAD_LIMIT_BYTES, files: 2, fields: 10, fieldSize: 4096, parts: 12 },
  });

  for (const url of ['/conf/auth/connect', '/conf/auth']) {
    app.get(
      url,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Starts OAuth with the meeting provider: redirects (302) to its consent page, or with ?redirect=false answers the URL',
          description:
            'The state is a random nonce with an HMAC binding it to the caller, stored for 10 minutes and usable once. An SPA that cannot follow a cross-origin redirect with its bearer token passes ?redirect=false and navigates itself.',
          querystring: ConnectQuery,
          response: { 200: ConnectStart, 302: ConnectStart, ...problemResponses(422) },
        },
      },
      async (request, reply) => {
        const start = await startConfConnect(ctx, signedIn(request).id);
        if (request.query.redirect === false) return start;
        return reply.status(302).header('location', start.authorizeUrl).send(start);
      },
    );
  }

  for (const url of ['/conf/auth/callback', '/conf/callback']) {
    app.get(
      url,
      {
        // The provider redirects the browser here, and a navigation carries no bearer token: the
        // server-side state names the user (see completeConfConnect).
        config: { access: 'public' },
        onRequest: app.identityLimit,
        schema: {
          tags,
          summary: 'Completes OAuth: checks the state, exchanges the code, stores both tokens encrypted',
          description:
            "Where the provider sends the browser back (the redirect_uri of GET /conf/auth/connect unless CONF_REDIRECT_URI points it elsewhere, for instance at an SPA page that calls this route with the same code and state). No bearer token is needed: the state, HMAC-bound to the admin who started the flow, stored for 10 minutes and usable once, names the user, who must still be an active admin (403 FORBIDDEN, ACCOUNT_SUSPENDED or ADMIN_2FA_REQUIRED otherwise). A bearer token, when sent, must be that user's: another user's is 400 INVALID_OAUTH_STATE, one that identifies no active user 401 INVALID_TOKEN, and either leaves the state usable. An expired, tampered or reused state is 400 INVALID_OAUTH_STATE. When the provider sends error (and error_description) instead of code (RFC 6749 §4.1.2.1; access_denied: the user declined), the state is spent and the answer is 400 OAUTH_AUTHORIZATION_ERROR naming it; neither code nor error is 400 VALIDATION_FAILED. A code the provider refuses is 400 OAUTH_CODE_REJECTED; the provider refusing this service's own client credentials (CONF_CLIENT_ID, CONF_CLIENT_SECRET) is a configuration error, 502 CONF_CLIENT_REJECTED. A provider account already connected to another user is 409; one still named by a user whose connection ended is taken over. Answers the connection as JSON, never cached (no-store).",
          security: [{}, { bearerAuth: [] }],
          querystring: CallbackQuery,
          response: { 200: Connection, ...problemResponses(400, 401, 403, 409, 422, 502) },
        },
      },
      async (request) =>
        completeConfConnect(ctx, actorOf(request) ?? (request.headers.authorization ? 'unrecognised' : 'anonymous'), request.query),
    );
  }

  app.get(
    '/conf/token',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "The caller's provider connection (never a token)",
        description: 'connected is false as well when the stored tokens no longer decrypt (ENCRYPTION_KEY changed): connect again.',
        response: { 200: Connection },
      },
    },
    async (request) => confConnection(ctx, signedIn(request).id),
  );

  app.post(
    '/conf/auth/backfill',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Queues ingestion of the caller's cloud recordings with transcripts between two dates (inclusive, at most 180 days)",
        description:
          '422 CONF_NOT_CONNECTED when the caller is not connected, or the stored tokens no longer decrypt (ENCRYPTION_KEY changed: connect again); 502 CONF_PROVIDER_ERROR when the provider fails, CONF_CLIENT_REJECTED when it refuses the service’s client credentials (a configuration error: the tokens are kept).',
        querystring: BackfillQuery,
        response: { 202: BackfillResult, ...problemResponses(422, 502) },
      },
    },
    async (request, reply) => reply.status(202).send(await backfillRecordings(ctx, signedIn(request).id, request.query)),
  );

  app.get(
    '/conf/meetings',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Meetings, newest first',
        querystring: ListMeetingsQuery,
        response: { 200: listOf(Meeting) },
      },
    },
    async (request) => listMeetings(ctx, request.query),
  );

  app.get(
    '/conf/meetings/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'One meeting with its parsed transcript and what insight extraction did (insightsStatus, insightsError)',
        params: IdParams,
        response: { 200: MeetingDetail, ...problemResponses(404) },
      },
    },
    async (request) => getMeeting(ctx, request.params.id),
  );

  reprocessMeetingRoute(
    app,
    '/conf/meetings/:id/transcript',
    tags,
    'Re-processes a completed or failed meeting (queued; 409 while it is pending): both paths again from the kept transcript, the way to retry insight extraction after insightsStatus failed',
  );

  app.get(
    '/conf/insights',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Insights extracted from meetings',
        querystring: ListInsightsQuery,
        response: { 200: listOf(Insight) },
      },
    },
    async (request) => listInsights(ctx, request.query),
  );

  app.put(
    '/conf/insights/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Approve (status approved), reject, or edit an insight',
        params: IdParams,
        body: UpdateInsightBody,
        response: { 200: Insight, ...problemResponses(404, 422) },
      },
    },
    async (request) => updateInsight(ctx, signedIn(request), request.params.id, request.body),
  );

  app.post(
    '/conf/insights/:id/convert-to-faq',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Converts an approved insight into FAQ content: updates the FAQ it matches closely (or faqId; 200), else creates an approved FAQ (201); 422 when not approved, 409 when converted already',
        params: IdParams,
        body: ConvertBody,
        response: {
          200: ConvertResult,
          201: ConvertResult,
          ...problemResponses(404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const res = await convertInsightToFaq(ctx, signedIn(request), request.params.id, request.body ?? {});
      return reply.status(res.action === 'created' ? 201 : 200).send(res);
    },
  );

  app.get(
    '/conf/health',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "The integration's state: the caller's connection, the webhook secret, the last event, the queue depth",
        response: { 200: Health },
      },
    },
    async (request) => confHealth(ctx, signedIn(request).id),
  );

  app.get(
    '/conf/public-stats',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Counts of processed meetings, approved insights and knowledge items of one program (batchId, else the default program)',
        querystring: BatchQuery,
        response: { 200: PublicStats, ...problemResponses(404) },
      },
    },
    async (request) => confPublicStats(ctx, { batchId: request.query.batchId }),
  );

  app.post(
    '/conf/recording-event',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Takes a provider event like the webhook, authenticated by an admin bearer token instead of a signature',
        description:
          'For replaying an event by hand (for example one the webhook refused while it was misconfigured, or one skipped before its host connected): recording.transcript_completed and recording.completed are queued each time, even when the webhook delivered the same event before (an existing meeting of its uuid is kept: re-process it with POST /conf/meetings/:id/transcript); other events are acknowledged and ignored.',
        body: RecordingEventBody,
        response: { 200: WebhookAnswer, ...problemResponses(503) },
      },
    },
    async (request) => acceptRecordingEvent(ctx, request.body as Record<string, unknown>, { replay: true }),
  );

  app.post(
    '/conf/upload-transcript',
    {
      config: { access: 'admin' },
      // The body is multipart or JSON and is checked by hand below; the schema documents each media type
      // with its own shape (a union under both would offer rawText as multipart and a file as JSON). The
      // query is checked as on every route (no parameter: `?batchId=` filed the meeting in the default program).
      validatorCompiler: ({ schema, httpPart }) =>
        (httpPart === 'body' ? () => true : compilePartValidator(schema, httpPart ?? '')) as unknown as ReturnType<
          FastifySchemaCompiler<unknown>
        >,
      schema: {
        tags,
        summary: 'Uploads a transcript: multipart (file + source=manual_vtt) or JSON {rawText, source: "manual_raw"}',
        description: `Processed within the request through the same two paths as a webhook meeting. The file is capped at UPLOAD_LIMIT_BYTES (413 above it). An unparseable VTT is 400 INVALID_VTT; a transcript under 30 characters is 422 TRANSCRIPT_TOO_SHORT.`,
        body: {
          content: {
            'multipart/form-data': { schema: UploadMultipartBody },
            'application/json': { schema: UploadJsonBody },
          },
        },
        response: { 201: UploadResult, ...problemResponses(404, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const actor = signedIn(request);
      if (request.isMultipart()) {
        const fields: Record<string, string> = {};
        let content: string | undefined;
        let fileName: string | undefined;
        try {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              const buf = await part.toBuffer();
              if (part.fieldname !== 'file') throw invalidField(`body.${part.fieldname}`, 'unexpected file field (use "file")');
              if (content !== undefined) throw invalidField('body.file', 'one file only, in the field file');
              // WebVTT is UTF-8 (and so is every text this API takes): other bytes were stored as U+FFFD.
              content = utf8File(buf);
              fileName = part.filename;
            } else {
              // A field sent twice is refused, not resolved silently (the last one would win).
              if (Object.hasOwn(fields, part.fieldname)) throw invalidField(`body.${part.fieldname}`, 'was sent more than once');
              fields[part.fieldname] = String(part.value);
            }
          }
        } catch (err) {
          // The parser's own complaints (no boundary, the body ends mid-part) are the client's malformed
          // body, a 400; size limits (FST_*) and our field errors keep their answers.
          const code = (err as { code?: unknown }).code;
          // A third file or too many fields is a malformed form, not a large body (the parser says 413). The
          // limit error does not name the field that went over it (a second file is named above).
          if (code === 'FST_FILES_LIMIT') throw invalidField('body.file', 'one file only, in the field file');
          if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
            throw invalidField('body', 'too many fields: send file, source and optionally topic and batchId');
          // A `__proto__` (or `constructor`) field: refused as the JSON body's would be, naming it.
          if (code === 'FST_PROTO_VIOLATION') throw invalidField('body.__proto__', 'is not an allowed field name');
          if (err instanceof AppError || (typeof code === 'string' && code.startsWith('FST_'))) throw err;
          throw appError(400, Code.INVALID_BODY, `The multipart body is malformed: ${(err as Error).message}`);
        }
        checkBody(validateMultipartFields, fields);
        if (content === undefined) throw invalidField('body.file', 'is required');
        const result = await uploadTranscript(ctx, actor, {
          source: 'manual_vtt',
          content,
          topic: fields.topic,
          fileName,
          batchId: fields.batchId,
        });
        return reply.status(201).send(result);
      }
      // JSON that is not an object (null, a number, no body at all) is named like any bad body; only
      // another media type is a 415.
      const isJson = /^application\/json\b/i.test(request.headers['content-type'] ?? '');
      if (!isJson && (!request.body || typeof request.body !== 'object')) {
        throw appError(
          415,
          Code.UNSUPPORTED_MEDIA_TYPE,
          'Send multipart/form-data (file + source=manual_vtt) or application/json (rawText + source=manual_raw)',
        );
      }
      checkBody(validateJsonUpload, request.body);
      const body = request.body as { rawText: string; topic?: string; batchId?: string };
      return reply
        .status(201)
        .send(
          await uploadTranscript(ctx, actor, { source: 'manual_raw', content: body.rawText, topic: body.topic, batchId: body.batchId }),
        );
    },
  );

  // The webhook needs the raw bytes for its signature: its own scope parses bodies as buffers.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    raw.post(
      '/conf/webhook',
      {
        config: { access: 'provider', rateLimit: false },
        schema: {
          tags,
          summary: 'The provider webhook: signed events, acknowledged with 200 {received: true} once the job is committed',
          description:
            'x-zm-signature = v0=<hex HMAC-SHA256(CONF_WEBHOOK_SECRET_TOKEN, "v0:" + x-zm-request-timestamp + ":" + raw body)>, compared in constant time; timestamps more than 300 s away are refused (401 INVALID_SIGNATURE). The signature is checked before endpoint.url_validation is answered. recording.transcript_completed (primary) and recording.completed (fallback) are queued; other events are acknowledged and ignored. 503 when the job could not be stored (the provider retries), or in production without a secret (fail-closed).',
          response: { 200: WebhookAnswer, ...problemResponses(400, 401, 503) },
        },
      },
      async (request) =>
        handleConfWebhook(ctx, {
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          signature: header(request.headers['x-zm-signature']),
          timestamp: header(request.headers['x-zm-request-timestamp']),
        }),
    );
  });
};
