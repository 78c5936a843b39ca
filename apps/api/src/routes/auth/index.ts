import {
  changePassword,
  disableTwoFactor,
  enableTwoFactor,
  exportUserData,
  getUser,
  login,
  logout,
  refreshSession,
  register,
  setupTwoFactor,
  updateProfile,
  verifyTwoFactorLogin,
} from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import type { RoutePlugin } from '../../lib/types.js';
import { clientMeta } from '../../plugins/auth.js';
import {
  CodeBody,
  LoginBody,
  LoginResponse,
  LogoutBody,
  PasswordBody,
  ProfileBody,
  RecoveryCodes,
  RefreshBody,
  RegisterBody,
  Session,
  TwoFactorSetup,
  TwoFactorVerifyBody,
  User,
  UserExport,
} from './schemas.js';

const TTL_NOTE =
  'Access tokens are HS256 JWTs valid JWT_ACCESS_TTL_SECONDS (default 15 minutes); refresh tokens are opaque, ' +
  'single use and valid JWT_REFRESH_TTL_DAYS (default 30 days).';

/** Accounts, sessions, the caller's own profile and data, and admin two-factor. */
export const authRoutes: RoutePlugin = async (app) => {
  const { ctx, tokens } = app;

  app.post(
    '/auth/register',
    {
      config: { access: 'public', rateLimit: app.limits.register },
      onRequest: app.identityLimit,
      schema: {
        tags: ['auth'],
        summary: 'Create an account (role user) and sign in',
        description: `Emails are trimmed, lower-cased and unique. ${TTL_NOTE}`,
        body: RegisterBody,
        response: { 201: Session, ...problemResponses(409) },
      },
    },
    async (request, reply) => reply.status(201).send(await register(ctx, tokens, request.body, clientMeta(request))),
  );

  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      preHandler: app.loginLimit.preHandler,
      onResponse: app.loginLimit.onResponse,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with email and password',
        description: `Answers a session, or for an account with two-factor on { twoFactorRequired, challengeToken } to complete at POST /auth/2fa/verify. Suspended accounts get 403. Only failed sign-ins count towards the limits: RATE_LIMIT_LOGIN_MAX per account and address, RATE_LIMIT_LOGIN_ADDRESS_MAX per address, per RATE_LIMIT_WINDOW_SECONDS (429 with retry-after). ${TTL_NOTE}`,
        body: LoginBody,
        response: { 200: LoginResponse, ...problemResponses(401, 403) },
      },
    },
    async (request) => login(ctx, tokens, request.body, clientMeta(request)),
  );

  app.post(
    '/auth/refresh',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Rotate the refresh token for a new session',
        description: `The given refresh token is used up. Presenting it again revokes every token of its sign-in (401 REFRESH_TOKEN_REUSED), unless the operator set REFRESH_REUSE_GRACE_SECONDS (default 0): within that many seconds of its rotation the same token answers the same successor again, while that successor is unused (a second tab or a client retry). ${TTL_NOTE}`,
        body: RefreshBody,
        response: { 200: Session, ...problemResponses(401, 403) },
      },
    },
    async (request) => refreshSession(ctx, tokens, request.body.refreshToken, clientMeta(request)),
  );

  app.post(
    '/auth/logout',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Sign out: revoke the refresh token and its sign-in family',
        description:
          'Needs no access token: the refresh token identifies the session. Unknown tokens are ignored (204 either way). ' +
          'allSessions: true revokes every refresh token of its owner and needs a current refresh token (one not yet rotated, revoked or expired; else 401 INVALID_REFRESH_TOKEN). ' +
          'Access tokens already issued expire on their own (at most JWT_ACCESS_TTL_SECONDS).',
        body: LogoutBody,
        response: { 204: T.Null(), ...problemResponses(401) },
      },
    },
    async (request, reply) => {
      await logout(ctx, request.body.refreshToken, { allSessions: request.body.allSessions ?? false });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: 'user' },
      schema: { tags: ['auth'], summary: 'The signed-in user', response: { 200: User } },
    },
    async (request) => getUser(ctx, signedIn(request).id),
  );

  app.patch(
    '/auth/profile',
    {
      config: { access: 'user' },
      schema: {
        tags: ['auth'],
        summary: 'Update name, bio or avatar of the signed-in user',
        body: ProfileBody,
        response: { 200: User },
      },
    },
    async (request) => updateProfile(ctx, signedIn(request).id, request.body),
  );

  app.put(
    '/auth/password',
    {
      config: { access: 'user', rateLimit: app.limits.password },
      schema: {
        tags: ['auth'],
        summary: 'Change the password',
        description: `Checks the current password (400 WRONG_PASSWORD), revokes every refresh token of the user and answers a fresh session. ${TTL_NOTE}`,
        body: PasswordBody,
        response: { 200: Session },
      },
    },
    async (request) => changePassword(ctx, tokens, signedIn(request).id, request.body, clientMeta(request)),
  );

  app.get(
    '/auth/export',
    {
      config: { access: 'user' },
      schema: {
        tags: ['auth'],
        summary: "Export the signed-in user's own data",
        description:
          'Profile, posts, comments, votes, notifications, tea drops, notification settings and reputation: only the caller’s rows, no secrets.',
        response: { 200: UserExport },
      },
    },
    async (request, reply) => {
      const data = await exportUserData(ctx, signedIn(request).id);
      return reply.header('content-disposition', 'attachment; filename="community-faq-export.json"').send(data);
    },
  );

  // Admin two-factor (TOTP). Setup and enable are open to any signed-in user so that a non-admin is told
  // why (403 TWO_FACTOR_ADMIN_ONLY, from core) rather than a bare FORBIDDEN.
  const twoFactor = app.limits.twoFactor;

  app.post(
    '/auth/2fa/setup',
    {
      config: { access: 'user', rateLimit: twoFactor },
      schema: {
        tags: ['auth'],
        summary: 'Start two-factor enrolment (admins)',
        description: 'A new TOTP secret, pending until POST /auth/2fa/enable confirms it with a code. 409 when already enabled.',
        response: { 200: TwoFactorSetup, ...problemResponses(409) },
      },
    },
    async (request) => setupTwoFactor(ctx, signedIn(request).id),
  );

  app.post(
    '/auth/2fa/enable',
    {
      config: { access: 'user', rateLimit: twoFactor },
      schema: {
        tags: ['auth'],
        summary: 'Confirm enrolment with a code; answers the recovery codes once',
        body: CodeBody,
        response: { 200: RecoveryCodes, ...problemResponses(409, 422) },
      },
    },
    async (request) => enableTwoFactor(ctx, signedIn(request).id, request.body.code),
  );

  // Failed codes counted per account named by a valid challenge (else per address), after the body is
  // parsed; a successful sign-in takes its attempt back, so an admin's own logins never lock them out.
  const verifyLimit = app.twoFactorVerifyLimit((request: FastifyRequest) => {
    const body = request.body as { challengeToken?: unknown } | undefined;
    const sub = typeof body?.challengeToken === 'string' ? tokens.readChallenge(body.challengeToken)?.userId : null;
    return sub ? `2fa:${sub}` : `ip:${request.ip}`;
  });
  app.post(
    '/auth/2fa/verify',
    {
      config: { access: 'public' },
      preHandler: verifyLimit.preHandler,
      onResponse: verifyLimit.onResponse,
      schema: {
        tags: ['auth'],
        summary: 'Complete a two-factor login',
        description: `The challenge token from POST /auth/login and a TOTP code (current or previous 30 s step, each accepted once) or an unused recovery code. ${TTL_NOTE}`,
        body: TwoFactorVerifyBody,
        response: { 200: Session, ...problemResponses(401, 403) },
      },
    },
    async (request) => verifyTwoFactorLogin(ctx, tokens, request.body, clientMeta(request)),
  );

  app.post(
    '/auth/2fa/disable',
    {
      config: { access: 'user', rateLimit: twoFactor },
      schema: {
        tags: ['auth'],
        summary: 'Turn two-factor off (needs a current code or a recovery code)',
        description: 'Open to any signed-in account that has two-factor on, so a demoted admin can still turn it off.',
        body: CodeBody,
        response: { 204: T.Null(), ...problemResponses(422) },
      },
    },
    async (request, reply) => {
      await disableTwoFactor(ctx, signedIn(request).id, request.body.code);
      return reply.status(204).send(null);
    },
  );
};
