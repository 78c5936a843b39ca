import { index, integer, jsonb, pgTable, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, tstz, updatedAt } from './columns.js';
import { users } from './identity.js';
import { batches } from './programs.js';

/**
 * AI provider configuration, one row per scope ('global'). API keys are AES-256-GCM encrypted
 * (row id as additional data) and only the admin key-reveal route decrypts them.
 */
export const aiConfigs = pgTable(
  'ai_configs',
  {
    id: id(),
    scope: text().notNull().default('global'),
    provider: text(),
    model: text(),
    autoAnswerProvider: text(),
    autoAnswerModel: text(),
    auditProvider: text(),
    auditModel: text(),
    /** provider -> encrypted key */
    apiKeys: jsonb().$type<Record<string, string>>().notNull().default({}),
    /** provider -> base URL override */
    baseUrls: jsonb().$type<Record<string, string>>().notNull().default({}),
    settings: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    requestCount: integer().notNull().default(0),
    tokenCount: integer().notNull().default(0),
    usageResetAt: timestamp({ withTimezone: true }),
    updatedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('ai_configs_scope_key').on(t.scope)],
);

export const adminLogs = pgTable(
  'admin_logs',
  {
    id: id(),
    actorId: uuid().references(() => users.id, { onDelete: 'set null' }),
    action: text().notNull(),
    targetType: text(),
    targetId: text(),
    reason: text(),
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    ip: text(),
    batchId: uuid().references(() => batches.id),
    createdAt: createdAt(),
  },
  (t) => [index('admin_logs_created_idx').on(t.createdAt), index('admin_logs_actor_idx').on(t.actorId)],
);

export const moderationLogs = pgTable(
  'moderation_logs',
  {
    id: id(),
    // Plain ids, no foreign key (as the admin log's): a log entry keeps whom it was about and who acted
    // after either account is deleted (with the key's ON DELETE SET NULL, a deleted user's suspensions
    // no longer named them, and their admin log's user.deleted entry could not be linked to them).
    actorId: uuid(),
    targetUserId: uuid(),
    action: text().notNull(),
    reason: text(),
    until: tstz('until'),
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [index('moderation_logs_created_idx').on(t.createdAt), index('moderation_logs_target_idx').on(t.targetUserId)],
);

/** Questions asked of the knowledge chat / AI, with the answer and the sources it used. */
export const aiQuestions = pgTable(
  'ai_questions',
  {
    id: id(),
    userId: uuid().references(() => users.id, { onDelete: 'set null' }),
    batchId: uuid().references(() => batches.id),
    question: text().notNull(),
    answer: text(),
    sources: text().array().notNull().default([]),
    provider: text(),
    model: text(),
    confidence: real(),
    createdAt: createdAt(),
  },
  (t) => [index('ai_questions_batch_idx').on(t.batchId), index('ai_questions_user_idx').on(t.userId)],
);
