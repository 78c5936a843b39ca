import { acceptComment, resolvePost, updatePost } from '@cfaq/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp, whileHeld } from './helpers.js';

// Staff verify, "does not answer" marks and resolve read the post under its lock inside their write:
// a delete of the post that commits while they run is seen (404) and they write nothing, instead of
// awarding points, logging a moderation action or answering a post that is gone.
type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let mod: Who;
let asker: Who;
let answerer: Who;

beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  mod = await t.signIn('moderator');
  asker = await t.signIn('user');
  answerer = await t.signIn('user');
});
afterAll(async () => {
  await t.close();
});

async function postWithComment(): Promise<{ postId: string; commentId: string }> {
  const p = await t.app.inject({
    method: 'POST',
    url: '/api/community/posts',
    headers: asker.headers,
    payload: { title: 'Where do I find the week one syllabus?', body: 'It is not on the course page.' },
  });
  expect(p.statusCode).toBe(201);
  const postId = (p.json() as { id: string }).id;
  const c = await t.app.inject({
    method: 'POST',
    url: `/api/community/posts/${postId}/comments`,
    headers: answerer.headers,
    payload: { body: 'It is attached to the welcome email.' },
  });
  expect(c.statusCode).toBe(201);
  return { postId, commentId: (c.json() as { id: string }).id };
}

const deleteHeld = (postId: string) =>
  [`UPDATE community_posts SET deleted_at = now(), updated_at = now() WHERE id = $1`, [postId]] as const;
const count = async (sql: string, params: unknown[]) => Number((await t.ctx.pool.query<{ n: string }>(sql, params)).rows[0]?.n);
const moderationLogs = (postId: string, action: string) =>
  count(`SELECT count(*) AS n FROM moderation_logs WHERE details ->> 'postId' = $1 AND action = $2`, [postId, action]);

describe('a post deleted while staff act on it', () => {
  it('verify: 404, the comment stays unverified and its author earns nothing', async () => {
    const { postId, commentId } = await postWithComment();
    const [sql, params] = deleteHeld(postId);
    const res = await whileHeld(t.ctx.pool, sql, [...params], () =>
      t.app.inject({ method: 'PUT', url: `/api/community/posts/${postId}/comments/${commentId}/verify`, headers: mod.headers }),
    );
    expectProblem(res, 404, 'POST_NOT_FOUND');
    expect(await count(`SELECT count(*) AS n FROM comments WHERE id = $1 AND is_verified`, [commentId])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM reputation_logs WHERE user_id = $1`, [answerer.id])).toBe(0);
    expect(await moderationLogs(postId, 'verify_answer')).toBe(0);
  });

  it('does-not-answer mark: 404 and nothing marked or logged', async () => {
    const { postId, commentId } = await postWithComment();
    const [sql, params] = deleteHeld(postId);
    const res = await whileHeld(t.ctx.pool, sql, [...params], () =>
      t.app.inject({ method: 'PUT', url: `/api/community/posts/${postId}/comments/${commentId}/dna`, headers: mod.headers }),
    );
    expectProblem(res, 404, 'POST_NOT_FOUND');
    expect(await count(`SELECT count(*) AS n FROM comments WHERE id = $1 AND dna`, [commentId])).toBe(0);
    expect(await moderationLogs(postId, 'mark_dna')).toBe(0);
  });

  it('resolve: 404 and the deleted post is not answered', async () => {
    const { postId } = await postWithComment();
    const [sql, params] = deleteHeld(postId);
    const res = await whileHeld(t.ctx.pool, sql, [...params], () =>
      t.app.inject({ method: 'POST', url: `/api/community/posts/${postId}/resolve`, headers: mod.headers }),
    );
    expectProblem(res, 404, 'POST_NOT_FOUND');
    expect(await count(`SELECT count(*) AS n FROM community_posts WHERE id = $1 AND status = 'open'`, [postId])).toBe(1);
    expect(await moderationLogs(postId, 'resolve_post')).toBe(0);
  });
});

describe('a post deleted right after staff or its author acted on it', () => {
  /**
   * Core's context with a delete of the post committed just after each transaction commits, before the
   * function returns: the moment a concurrent DELETE can land (on the embedded database, where one
   * session serves every connection in turn, it did, and a saved edit or accept was answered 404).
   */
  const deletedAfterCommit = (postId: string): typeof t.ctx => {
    const db = new Proxy(t.ctx.db, {
      get(target, prop, receiver) {
        if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.transaction>) => {
          const out = await target.transaction(...args);
          await t.ctx.pool.query('UPDATE community_posts SET deleted_at = now(), updated_at = now() WHERE id = $1', [postId]);
          return out;
        };
      },
    });
    return { ...t.ctx, db };
  };
  const author = () => ({ id: asker.id, role: 'user' as const });

  it('an edit that committed answers the edited post, not 404', async () => {
    const { postId } = await postWithComment();
    const view = await updatePost(deletedAfterCommit(postId), author(), postId, { title: 'Where is the week one syllabus kept?' });
    expect(view).toMatchObject({ id: postId, title: 'Where is the week one syllabus kept?' });
  });

  it('a resolve that committed answers the answered post, not 404', async () => {
    const { postId } = await postWithComment();
    expect(await resolvePost(deletedAfterCommit(postId), author(), postId)).toMatchObject({ id: postId, status: 'answered' });
  });

  it('an accept that committed answers the post and the accepted comment, not 404', async () => {
    const { postId, commentId } = await postWithComment();
    const out = await acceptComment(deletedAfterCommit(postId), author(), postId, commentId);
    expect(out).toMatchObject({ post: { id: postId, acceptedCommentId: commentId }, comment: { id: commentId, isAccepted: true } });
  });
});
