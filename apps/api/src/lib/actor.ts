import type { Actor } from '@cfaq/core';
import { unauthorized } from '@cfaq/core';
import type { FastifyRequest } from 'fastify';

/**
 * The one way a route gets its caller. Routes never read `request.auth` themselves.
 * - `actorOf`: on routes open to anonymous callers; null when anonymous.
 * - `signedIn`: on routes whose access level requires sign-in (the auth hook has already checked);
 *   with the address, which the admin log records for admin writes.
 */
export interface Caller extends Actor {
  ip: string;
}

export const actorOf = (request: FastifyRequest): Actor | null => (request.auth ? { id: request.auth.id, role: request.auth.role } : null);

export function signedIn(request: FastifyRequest): Caller {
  if (!request.auth) throw unauthorized();
  return { id: request.auth.id, role: request.auth.role, ip: request.ip };
}
