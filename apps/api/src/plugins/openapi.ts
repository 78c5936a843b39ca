import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SECURITY_SCHEMES } from '../lib/route-docs.js';

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
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs' });
  },
  { name: 'openapi' },
);
