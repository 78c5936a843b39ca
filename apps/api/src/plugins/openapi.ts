import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { OPTIONAL_BODY, SECURITY_SCHEMES } from '../lib/route-docs.js';

type Operation = {
  requestBody?: { required?: boolean };
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  [OPTIONAL_BODY]?: boolean;
};
type OpenApiDocument = { paths?: Record<string, Record<string, Operation>> };

/** Media types the route schemas cannot say, by path and status: the answer is not JSON. */
const TEXT_ANSWERS: Record<string, string> = { '/api/metrics 200': 'text/plain; version=0.0.4' };

/**
 * @fastify/swagger documents every response as application/json. Errors leave as
 * application/problem+json (plugins/problem.ts) and the metrics as Prometheus text, so a client that
 * checks the media type against the document must find the one it gets.
 */
export function documentMediaTypes<D extends OpenApiDocument>(doc: D): D {
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const content = response.content;
        if (!content) continue;
        // A route that produces another type (the event stream) still answers its errors as problems.
        const problem = Object.values(content).find((c) => c.schema?.$ref?.endsWith('/Problem'));
        if (problem) {
          response.content = { 'application/problem+json': problem };
          continue;
        }
        const text = TEXT_ANSWERS[`${path} ${status}`];
        const json = content['application/json'];
        if (text && json) response.content = { [text]: json };
      }
    }
  }
  return doc;
}

/**
 * @fastify/swagger marks every request body required. A route whose body may be left out (read as
 * `{}`: lib/route-docs.ts) carries the OPTIONAL_BODY mark, which becomes `required: false` here.
 */
export function documentOptionalBodies<D extends OpenApiDocument>(doc: D): D {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!(OPTIONAL_BODY in operation)) continue;
      if (operation[OPTIONAL_BODY] && operation.requestBody) operation.requestBody.required = false;
      delete operation[OPTIONAL_BODY];
    }
  }
  return doc;
}

/** OpenAPI 3 generated from the route schemas: UI at /api/docs, document at /api/docs/json. */
export const openapiPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'community-faq API',
          version: '0.1.0',
          description:
            'Community FAQ and Q&A platform. Errors are RFC 9457 problem details (application/problem+json). ' +
            'Lists answer { items, total, page, limit } with page from 1 and limit 1-100 (default 20).',
        },
        components: {
          securitySchemes: SECURITY_SCHEMES,
        },
        // Relative: the document describes the server that serves it (its paths carry the /api prefix).
        servers: [{ url: '/', description: 'this server' }],
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
      transformObject: (documents) =>
        documentOptionalBodies(documentMediaTypes((documents as { openapiObject: OpenApiDocument }).openapiObject)) as never,
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs' });
  },
  { name: 'openapi' },
);
