import { sql } from 'drizzle-orm';
import { reputationOnVote } from '../reputation/events.js';
import type { Tx } from '../shared/db.js';
import type { Vote, VoteOutcome } from './shape.js';

const TARGETS = {
  post: { votes: 'post_votes', key: 'post_id', counters: 'community_posts' },
  comment: { votes: 'comment_votes', key: 'comment_id', counters: 'comments' },
} as const;

export async function castVote(tx: Tx, kind: keyof typeof TARGETS, targetId: string, userId: string, value: Vote): Promise<VoteOutcome> {
  const t = TARGETS[kind];
  const votes = sql.identifier(t.votes);
  const key = sql.identifier(t.key);
  for (let attempt = 0; attempt < 5; attempt++) {
    let up = 0;
    let down = 0;
    let myVote: Vote | null;
    let before: Vote | null = null;
    const inserted = await tx.execute<{ value: number }>(
      sql`insert into ${votes} (${key}, user_id, value) values (${targetId}, ${userId}, ${value}) on conflict do nothing returning value`,
    );
    if (inserted.rows.length > 0) {
      if (value === 1) up = 1;
      else down = 1;
      myVote = value;
    } else {
      const existing = await tx.execute<{ value: number }>(
        sql`select value from ${votes} where ${key} = ${targetId} and user_id = ${userId} for update`,
      );
      const prev = existing.rows[0]?.value;
      if (prev === undefined) continue; // removed by a concurrent toggle: try again
      before = prev as Vote;
      if (prev === value) {
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
    }
    const res = await tx.execute<{ upvotes: number; downvotes: number }>(
      sql`update ${sql.identifier(t.counters)} set upvotes = upvotes + ${up}, downvotes = downvotes + ${down}
          where id = ${targetId} returning upvotes, downvotes`,
    );
    const counts = res.rows[0] ?? { upvotes: 0, downvotes: 0 };
    await reputationOnVote(tx, kind, targetId, userId, before, myVote);
    return { upvotes: counts.upvotes, downvotes: counts.downvotes, myVote };
  }
  throw new Error(`vote on ${kind} ${targetId} kept racing`);
}
