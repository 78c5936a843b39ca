import { sql } from 'drizzle-orm';
import { reputationOnVote } from '../reputation/events.js';
import type { Tx } from '../shared/db.js';
import type { Vote, VoteOutcome } from './shape.js';

const TARGETS = {
  post: { votes: 'post_votes', key: 'post_id', counters: 'community_posts' },
  comment: { votes: 'comment_votes', key: 'comment_id', counters: 'comments' },
} as const;

/** Moves a post's or comment's vote counters with its vote rows (same transaction). */
async function moveCounters(tx: Tx, kind: keyof typeof TARGETS, targetId: string, up: number, down: number) {
  const res = await tx.execute<{ upvotes: number; downvotes: number }>(
    sql`update ${sql.identifier(TARGETS[kind].counters)} set upvotes = upvotes + ${up}, downvotes = downvotes + ${down}
        where id = ${targetId} returning upvotes, downvotes`,
  );
  return res.rows[0] ?? { upvotes: 0, downvotes: 0 };
}

/**
 * One voter's click on one post or comment: a first vote, the same direction again (removes it) or the
 * other direction (switches). A transaction-scoped advisory lock on (target, voter) serialises one
 * voter's simultaneous clicks, so each reads the vote the previous one left: without it, clicks that
 * insert, toggle and switch at once kept finding the row gone and gave up. Other voters do not wait on
 * it; they meet only on the counters row.
 */
export async function castVote(tx: Tx, kind: keyof typeof TARGETS, targetId: string, userId: string, value: Vote): Promise<VoteOutcome> {
  const t = TARGETS[kind];
  const votes = sql.identifier(t.votes);
  const key = sql.identifier(t.key);
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`vote:${kind}:${targetId}:${userId}`}, 0))`);
  let up = 0;
  let down = 0;
  let myVote: Vote | null;
  const existing = await tx.execute<{ value: number }>(
    sql`select value from ${votes} where ${key} = ${targetId} and user_id = ${userId} for update`,
  );
  const before = (existing.rows[0]?.value ?? null) as Vote | null;
  if (before === null) {
    await tx.execute(sql`insert into ${votes} (${key}, user_id, value) values (${targetId}, ${userId}, ${value})`);
    if (value === 1) up = 1;
    else down = 1;
    myVote = value;
  } else if (before === value) {
    await tx.execute(sql`delete from ${votes} where ${key} = ${targetId} and user_id = ${userId}`);
    if (value === 1) up = -1;
    else down = -1;
    myVote = null;
  } else {
    await tx.execute(sql`update ${votes} set value = ${value} where ${key} = ${targetId} and user_id = ${userId}`);
    up = value === 1 ? 1 : -1;
    down = -up;
    myVote = value;
  }
  const counts = await moveCounters(tx, kind, targetId, up, down);
  await reputationOnVote(tx, kind, targetId, userId, before, myVote);
  return { upvotes: counts.upvotes, downvotes: counts.downvotes, myVote };
}

/**
 * Withdraws every post and comment vote of a user about to be deleted, as if each were clicked off:
 * the counters go down with the rows and the authors' points for them are reversed. The vote rows
 * would go with the user anyway (foreign key), but the counters and points would keep them.
 */
export async function withdrawVotesOf(tx: Tx, userId: string): Promise<void> {
  for (const kind of ['post', 'comment'] as const) {
    const t = TARGETS[kind];
    const gone = await tx.execute<{ target: string; value: number }>(
      sql`delete from ${sql.identifier(t.votes)} where user_id = ${userId} returning ${sql.identifier(t.key)} as target, value`,
    );
    for (const v of gone.rows) {
      await moveCounters(tx, kind, v.target, v.value === 1 ? -1 : 0, v.value === -1 ? -1 : 0);
      await reputationOnVote(tx, kind, v.target, userId, v.value as Vote, null);
    }
  }
}
