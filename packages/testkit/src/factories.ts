import { randomBytes } from 'node:crypto';
import { type CoreContext, hashPassword, type Role } from '@cfaq/core';
import { batches, documentInsights, transcriptKnowledge, users } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { testConfig } from './config.js';

export interface CreatedUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  password: string;
}

let cachedHash: { password: string; hash: string } | null = null;

/** Inserts a user, its password hashed at the tests' cost (TEST_ENV); the default password's hash is computed once per file. */
export async function createUser(
  ctx: Pick<CoreContext, 'db'>,
  opts: { role?: Role; email?: string; name?: string; password?: string; status?: 'active' | 'suspended' } = {},
): Promise<CreatedUser> {
  const password = opts.password ?? 'correct-horse-battery-staple';
  let hash: string;
  if (!opts.password && cachedHash) hash = cachedHash.hash;
  else {
    hash = await hashPassword(password, testConfig());
    if (!opts.password) cachedHash = { password, hash };
  }
  const email = opts.email ?? `user-${randomBytes(4).toString('hex')}@example.test`;
  const [row] = await ctx.db
    .insert(users)
    .values({ email, name: opts.name ?? 'Test User', passwordHash: hash, role: opts.role ?? 'user', status: opts.status ?? 'active' })
    .returning({ id: users.id, email: users.email, name: users.name, role: users.role });
  if (!row) throw new Error('user insert returned nothing');
  return { ...row, password };
}

/** The default program's id. */
export async function defaultProgramId(ctx: Pick<CoreContext, 'db'>): Promise<string> {
  const [row] = await ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true)).limit(1);
  if (!row) throw new Error('no default program');
  return row.id;
}

/**
 * Inserts a knowledge-base row (TranscriptKnowledge or DocumentInsight) with a given embedding, approved
 * unless told otherwise, in the default program unless a batchId is given.
 */
export async function createKnowledge(
  ctx: Pick<CoreContext, 'db'>,
  opts: {
    kind?: 'transcript_knowledge' | 'document_insight';
    batchId?: string;
    title?: string;
    content?: string;
    embedding?: number[] | null;
    status?: 'pending_review' | 'approved' | 'rejected' | 'promoted';
  } = {},
): Promise<{ id: string; kind: 'transcript_knowledge' | 'document_insight'; batchId: string }> {
  const kind = opts.kind ?? 'transcript_knowledge';
  const batchId = opts.batchId ?? (await defaultProgramId(ctx));
  const values = {
    batchId,
    title: opts.title ?? 'Knowledge title',
    content: opts.content ?? 'Knowledge content.',
    status: opts.status ?? ('approved' as const),
    embedding: opts.embedding ?? null,
    embeddedAt: opts.embedding ? new Date() : null,
  };
  const table = kind === 'transcript_knowledge' ? transcriptKnowledge : documentInsights;
  const [row] = await ctx.db.insert(table).values(values).returning({ id: table.id });
  if (!row) throw new Error('knowledge insert returned nothing');
  return { id: row.id, kind, batchId };
}
