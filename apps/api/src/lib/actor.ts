import type { Actor } from '@cfaq/core';
import { unauthorized } from '@cfaq/core';
import type { FastifyRequest } from 'fastify';

/** The caller as core sees it, or null when anonymous. */
export const actorOf = (request: FastifyRequest): Actor | null => (request.auth ? { id: request.auth.id, role: request.auth.role } : null);

/** The caller on a route whose access level requires sign-in (the auth hook has already checked). */
export function signedIn(request: FastifyRequest): Actor {
  const actor = actorOf(request);
  if (!actor) throw unauthorized();
  return actor;
}
