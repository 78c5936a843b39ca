import { userRole, userStatus } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of users and accounts: declared once here, used as route schemas and, through Static, as core types. */

export const RoleShape = literals(userRole.enumValues);
export type Role = Static<typeof RoleShape>;
export const UserStatusShape = literals(userStatus.enumValues);
export type UserStatus = Static<typeof UserStatusShape>;

/** A user as every route shows it: never a password hash, TOTP secret or token. */
export const UserShape = T.Object(
  {
    id: Uuid,
    email: T.String(),
    name: T.String(),
    role: RoleShape,
    status: UserStatusShape,
    reputation: T.Integer(),
    bio: Nullable(T.String()),
    avatarUrl: Nullable(T.String()),
    twoFactorEnabled: T.Boolean(),
    confConnected: T.Boolean(),
    /** The meeting provider account (spec User conf fields); its tokens are never shown. */
    confUserId: Nullable(T.String()),
    confConnectedAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { description: 'never carries a password hash, TOTP secret or token' },
);
export type UserJson = Static<typeof UserShape>;

/** The admin view of one user: the user plus suspension terms and last sign-in. */
export const UserDetailShape = T.Composite([
  UserShape,
  T.Object({
    suspendedAt: Nullable(DateTime),
    suspendedUntil: Nullable(DateTime),
    suspendedReason: Nullable(T.String()),
    lastLoginAt: Nullable(DateTime),
  }),
]);
export type UserDetail = Static<typeof UserDetailShape>;

const Rows = T.Array(T.Record(T.String(), T.Unknown()));
/** The data export (`GET /auth/export`): rows are plain JSON copies (dates already ISO strings). */
export const UserExportShape = T.Object({
  exportedAt: DateTime,
  profile: UserShape,
  posts: Rows,
  comments: Rows,
  votes: T.Object({ posts: Rows, comments: Rows, aiAnswers: Rows, faqReviews: Rows, faqFeedback: Rows }),
  notifications: Rows,
  teaDrops: Rows,
  notificationSettings: Nullable(T.Record(T.String(), T.Unknown())),
  reputation: T.Object({ total: T.Integer(), history: Rows, badges: Rows }),
  moderation: Rows,
  activity: T.Object({
    faqReports: Rows,
    /** FAQs the caller suggested (POST /faq/suggest), with the question and answer as they wrote them. */
    faqSuggestions: Rows,
    /** The caller's flags of FAQs (POST /faq/:id/flag) and the reasons they gave. */
    faqFlags: Rows,
    supportRequests: Rows,
    searches: Rows,
    unresolvedSearches: Rows,
    aiQuestions: Rows,
    meetings: Rows,
  }),
});
export type UserExport = Static<typeof UserExportShape>;
