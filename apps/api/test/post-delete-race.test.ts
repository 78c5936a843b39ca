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
