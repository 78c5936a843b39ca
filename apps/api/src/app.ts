import { randomUUID } from 'node:crypto';
import { badRequest, Code, type Config, ConfigError, type CoreContext, createLoggerOptions, invalidField } from '@cfaq/core';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { codingRefusal, jsonBodyText } from './lib/body-encoding.js';
import { answerClientError } from './lib/client-error.js';
import { AJV_OPTIONS, memoizedCompilers } from './lib/schema-compilers.js';
import { authPlugin } from './plugins/auth.js';
import { contextPlugin } from './plugins/context.js';
import { inputGuardPlugin } from './plugins/input-guard.js';
import { metricsPlugin } from './plugins/metrics.js';
import { openapiPlugin } from './plugins/openapi.js';
import { frameworkError, problemPlugin } from './plugins/problem.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { searchPlugin } from './plugins/search.js';
import { apiSecurityHeaders, applySecurityHeaders, securityPlugin } from './plugins/security.js';
import { apiRoutes } from './routes/index.js';

export interface BuildAppOptions {
  ctx: CoreContext;
  /** Overrides of Fastify's logger (tests pass false). */
  logger?: FastifyServerOptions['logger'];
}

function trustProxy(value: string): FastifyServerOptions['trustProxy'] {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address: string, hop: number) => hop < hops;
  }
  return value.split(',').map((s) => s.trim());
}

/**
 * Builds the HTTP app: plugins load external -> app -> routes, every route under /api. The start file
 * only listens; tests call this and use `app.inject`.
 */
export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = opts.ctx;
  const securityHeaders = apiSecurityHeaders(config.CORS_ORIGINS);
  const app = Fastify({
    logger: opts.logger ?? createLoggerOptions({ level: config.LOG_LEVEL, name: 'community-faq-api' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    trustProxy: trustProxy(config.TRUST_PROXY),
    bodyLimit: config.BODY_LIMIT_BYTES,
    ajv: AJV_OPTIONS,
    // Requests during shutdown get a problem response from plugins/problem.ts, not Fastify's bare 503.
    return503OnClosing: false,
    // A URL the router refuses is answered before any hook: the security headers are set here.
    frameworkErrors: (err, request, reply) => {
      applySecurityHeaders(request, reply, securityHeaders);
      return frameworkError(err, request, reply);
    },
    clientErrorHandler: (err, socket) => answerClientError(err, socket, securityHeaders),
    // Node answers an HTTP/1.1 request without a Host header with a bare 400 of its own (no problem
    // body, no security headers); the hook below refuses it as every other bad request is refused.
    http: { requireHostHeader: false },
    // The spec writes one path with a trailing slash (GET /knowledge/); every path answers with or without one.
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: memoizedCompilers },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Every body is JSON (or multipart where a route registers it): a text/plain body is the wrong media
  // type (415), not a malformed object (400). Fastify would otherwise parse it into a string.
  app.removeContentTypeParser('text/plain');
  // An empty JSON body is no body: clients that send `content-type: application/json` on every request
  // (fetch wrappers, SDKs) call body-less routes (votes, verify, promote) that way. Fastify's parser
  // refused it (400); a route that needs a body still says so, naming `body`. Anything else goes to
  // Fastify's own parser, with its prototype-poisoning checks.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = jsonBodyText(request.headers['content-type'], body as Buffer);
    } catch (err) {
      return done(err as FastifyError, undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    return jsonParser(request, text, (err, value) => {
      // Refused though it parses: a `__proto__` or `constructor.prototype` key (prototype poisoning).
      // That is a field the body may not have, not malformed JSON: name it as every other one.
      if (err && parsesAsJson(text))
        return done(invalidField('body', 'must not hold a "__proto__" or "constructor.prototype" key'), undefined);
      return done(err, value);
    });
  });

  // HTTP/1.1 requires exactly one Host header (RFC 9112 3.2: a request without one, or with more than
  // one, is a 400); Node's own check (off above) answered a bare 400 and let two through. The connection
  // is closed after the answer, as after the parser's own 400s: what follows on it cannot be trusted.
  app.addHook('onRequest', (request, reply, done) => {
    const hosts = countHostHeaders(request.raw.rawHeaders);
    const missing = hosts === 0 && request.raw.httpVersion === '1.1';
    if (!missing && hosts <= 1) return done();
    applySecurityHeaders(request, reply, securityHeaders);
    reply.header('connection', 'close');
    const detail = missing ? 'An HTTP/1.1 request needs a Host header' : 'A request may have only one Host header';
    done(badRequest(Code.BAD_REQUEST, detail) as unknown as FastifyError);
  });
  // A body in a content coding (gzip, br) is refused before any parser reads it (lib/body-encoding.ts).
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const refusal = codingRefusal(request.headers);
    if (refusal) return done(refusal as unknown as FastifyError);
    done(null, payload);
  });
  await app.register(contextPlugin, { ctx: opts.ctx });
  await app.register(problemPlugin);
  await app.register(inputGuardPlugin);
  // Before any plugin that declares routes: each route's metrics hook is bound as it is declared.
  await app.register(metricsPlugin);
  await app.register(openapiPlugin);
  await app.register(authPlugin);
  // After auth: its per-route hook then runs before the auth hook, so a 401 carries no-store too.
  await app.register(securityPlugin);
  await app.register(rateLimitPlugin);
  await app.register(searchPlugin);
  await app.register(apiRoutes, { prefix: '/api' });
  return app;
}

/**
 * Listens on HOST:PORT. An address this machine cannot listen on stops the start naming the setting:
 * a host name that does not resolve or an address that is not this machine's (HOST), a port in use
 * or reserved (PORT). Fastify's own error named neither (`getaddrinfo ENOTFOUND ...`).
 */
export async function listen(app: FastifyInstance, config: Pick<Config, 'HOST' | 'PORT'>): Promise<void> {
  try {
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EADDRNOTAVAIL') {
      throw new ConfigError('HOST', `cannot listen on ${JSON.stringify(config.HOST)} (${code}): not a name or address of this machine`);
    }
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw new ConfigError(
        'PORT',
        `cannot listen on port ${config.PORT} (${code}): ${code === 'EACCES' ? 'not allowed to this user' : 'in use'}`,
      );
    }
    throw err;
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** How many Host header lines the request sent (rawHeaders alternates names and values). */
function countHostHeaders(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'host') n++;
  return n;
}
