import type { Role } from '@cfaq/core';

/**
 * Every route declares who may call it (`config.access`); the app refuses to start with a route that
 * does not. Levels follow the spec's access table:
 * - public: anyone; a valid token still identifies the caller.
 * - user: signed in (the spec's `protect`).
 * - staff: admin or moderator (analytics, content curation).
 * - admin: admin only (`adminOnly`).
 * - provider: the meeting provider, authenticated by its webhook signature instead of a token.
 */
export const ACCESS_LEVELS = ['public', 'user', 'staff', 'admin', 'provider'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];
export type { Role };

export const ROLES_FOR: Record<Exclude<Access, 'public' | 'provider'>, readonly Role[]> = {
  user: ['user', 'moderator', 'admin'],
  staff: ['moderator', 'admin'],
  admin: ['admin'],
};

export interface AuthUser {
  id: string;
  role: Role;
  email: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** The signed-in caller, set by the auth plugin; null when anonymous. */
    auth: AuthUser | null;
  }
}
