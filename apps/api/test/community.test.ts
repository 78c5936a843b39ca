import { countUnansweredComments, type MemoryJobQueue } from '@cfaq/core';
import {
  batches,
  comments,
  communityPosts,
  faqs,
  moderationLogs,
  notificationSettings,
  notifications,
  postVotes,
  teaNotifications,
} from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
let moderator: Who;
let author: Who;
let answerer: Who;
let stranger: Who;
let defaultId: string;
let programB: string;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp();
  [admin, moderator, author, answerer, stranger] = await Promise.all([
    t.signIn('admin'),
    t.signIn('moderator'),
    t.signIn('user'),
    t.signIn('user'),
    t.signIn('user'),
  ]);
  const [d] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = d?.id as string;
  programB = (await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Community B' } })).json()
    .id;
});
afterAll(async () => {
  await t.close();
});

const sent = () => (t.jobs as MemoryJobQueue).sent;
type PostJson = Record<string, unknown> & { id: string };

async function newPost(payload: Record<string, unknown> = {}, who: Who = author): Promise<PostJson> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/community/posts',
    headers: who.headers,
    payload: { title: 'How do I join the study group?', body: 'I cannot find the link.', ...payload },
  });
  if (res.statusCode !== 201) throw new Error(`post failed ${res.statusCode} ${res.body}`);
  return res.json();
}
async function newComment(postId: string, who: Who = answerer, body = 'Check the pinned message.') {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/community/posts/${postId}/comments`,
    headers: who.headers,
    payload: { body },
  });
  if (res.statusCode !== 201) throw new Error(`comment failed ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown> & { id: string };
}
const notesOf = (userId: string, kind: string) =>
  t.ctx.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.kind, kind)));
const dropsOf = (userId: string, kind: string) =>
  t.ctx.db
    .select()
    .from(teaNotifications)
    .where(and(eq(teaNotifications.userId, userId), eq(teaNotifications.kind, kind)));

describe('posts', () => {
  it('creates a post in the default program with the spec fields and an embedding job', async () => {
    const before = sent().length;
    const post = await newPost();
    expect(post).toMatchObject({
      batchId: defaultId,
      authorId: author.id,
      title: 'How do I join the study group?',
      status: 'open',
      upvotes: 0,
      downvotes: 0,
      commentCount: 0,
      acceptedCommentId: null,
      convertedFaqId: null,
      aiAnswer: null,
      aiAnswerStatus: null,
      escalationStatus: 'none',
      escalatedAt: null,
      myVote: null,
    });
    expect(post).not.toHaveProperty('embedding');
    expect(sent().slice(before)).toEqual([{ name: 'search.embed-row', payload: { table: 'community_posts', id: post.id } }]);
  });

  it('create validates, needs sign-in, 404 for an unknown program', async () => {
    const post = (payload: object, h?: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/api/community/posts', ...(h ? { headers: h } : {}), payload });
    expectProblem(await post({ title: 'Hi', body: 'x' }, author.headers), 400);
    expectProblem(await post({ title: 'A long enough title', body: 'x', status: 'answered' }, author.headers), 400);
    expectProblem(await post({ title: 'A long enough title', body: 'x' }), 401);
    expectProblem(await post({ title: 'A long enough title', body: 'x', batchId: MISSING }, author.headers), 404);
  });

  it('lists with status/author filters and pagination, scoped to the program (isolation)', async () => {
    const inB = await newPost({ title: 'Program B only post', batchId: programB });
    const mine = await newPost({ title: 'Stranger post in default' }, stranger);
    const all = await t.app.inject({ method: 'GET', url: '/api/community/posts?limit=100' });
    const ids = (all.json() as { items: PostJson[] }).items.map((p) => p.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(inB.id);
    const b = await t.app.inject({ method: 'GET', url: `/api/community/posts?batchId=${programB}` });
    expect((b.json() as { items: PostJson[] }).items.map((p) => p.id)).toEqual([inB.id]);
    const byAuthor = await t.app.inject({ method: 'GET', url: `/api/community/posts?authorId=${stranger.id}` });
    expect((byAuthor.json() as { items: PostJson[] }).items.map((p) => p.id)).toEqual([mine.id]);
    const answered = await t.app.inject({ method: 'GET', url: '/api/community/posts?status=answered' });
    expect((answered.json() as { items: PostJson[] }).items.every((p) => p.status === 'answered')).toBe(true);
    const page = await t.app.inject({ method: 'GET', url: '/api/community/posts?limit=1&page=2' });
    expect(page.json()).toMatchObject({ page: 2, limit: 1 });
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/community/posts?status=weird' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/posts?batchId=${MISSING}` }), 404);
  });

  it('GET one shows commentCount and my vote; unknown or deleted is 404', async () => {
    const post = await newPost();
    await newComment(post.id);
    await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/upvote`, headers: stranger.headers });
    const res = await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}`, headers: stranger.headers });
    expect(res.json()).toMatchObject({ commentCount: 1, upvotes: 1, myVote: 1 });
    const anon = await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}` });
    expect(anon.json()).toMatchObject({ myVote: null });
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/posts/${MISSING}` }), 404, 'POST_NOT_FOUND');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/community/posts/nope' }), 400);
  });

  it('PUT: owner or staff edit (re-embeds); others 403; deleted 404', async () => {
    const post = await newPost();
    const before = sent().length;
    const own = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${post.id}`,
      headers: author.headers,
      payload: { body: 'New body' },
    });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ body: 'New body' });
    expect(sent().slice(before)).toEqual([{ name: 'search.embed-row', payload: { table: 'community_posts', id: post.id } }]);
    const mod = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${post.id}`,
      headers: moderator.headers,
      payload: { title: 'Moderated title' },
    });
    expect(mod.json()).toMatchObject({ title: 'Moderated title' });
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}`, headers: stranger.headers, payload: { body: 'x' } }),
      403,
    );
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}`, headers: author.headers, payload: {} }), 400);
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}`, payload: { body: 'x' } }), 401);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${MISSING}`, headers: author.headers, payload: { body: 'x' } }),
      404,
    );
  });

  it('DELETE is soft; staff deleting notifies the author with post_deleted; the author deleting does not', async () => {
    const post = await newPost();
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${post.id}`, headers: stranger.headers }), 403);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${post.id}`, headers: moderator.headers })).statusCode).toBe(
      204,
    );
    const [row] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, post.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    const notes = await notesOf(author.id, 'post_deleted');
    expect(notes.filter((n) => (n.data as { postId?: string }).postId === post.id)).toMatchObject([{ batchId: defaultId }]);
    // The post only, not the moderator who removed it (the export hides the acting staff member).
    expect(notes.find((n) => (n.data as { postId?: string }).postId === post.id)?.data).toEqual({ postId: post.id });
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}` }), 404);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}`, headers: author.headers, payload: { body: 'x' } }),
      404,
    );
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${post.id}`, headers: author.headers }), 404);

    const own = await newPost();
    const count = (await notesOf(author.id, 'post_deleted')).length;
    expect((await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${own.id}`, headers: author.headers })).statusCode).toBe(204);
    expect(await notesOf(author.id, 'post_deleted')).toHaveLength(count);
  });

  it('resolve: owner or staff mark answered; twice is 422; others 403', async () => {
    const post = await newPost();
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/resolve`, headers: stranger.headers }), 403);
    const res = await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/resolve`, headers: author.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'answered', answeredAt: expect.any(String) });
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/resolve`, headers: moderator.headers }),
      422,
      'POST_NOT_OPEN',
    );
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/community/posts/${MISSING}/resolve`, headers: author.headers }), 404);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/community/posts/bad/resolve', headers: author.headers }), 400);
  });
});

describe('votes', () => {
  it('one vote per user: same again removes, opposite switches', async () => {
    const post = await newPost();
    const v = (dir: string) => t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/${dir}`, headers: stranger.headers });
    expect((await v('upvote')).json()).toEqual({ upvotes: 1, downvotes: 0, myVote: 1 });
    expect((await v('downvote')).json()).toEqual({ upvotes: 0, downvotes: 1, myVote: -1 });
    expect((await v('downvote')).json()).toEqual({ upvotes: 0, downvotes: 0, myVote: null });
    expect((await v('upvote')).json()).toEqual({ upvotes: 1, downvotes: 0, myVote: 1 });
    expect((await v('upvote')).json()).toEqual({ upvotes: 0, downvotes: 0, myVote: null });
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/upvote` }), 401);
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/community/posts/${MISSING}/upvote`, headers: stranger.headers }), 404);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/community/posts/x/downvote', headers: stranger.headers }), 400);
  });

  it('counters stay equal to the vote rows under parallel votes', async () => {
    const post = await newPost();
    const users = await Promise.all(Array.from({ length: 12 }, () => t.signIn('user')));
    await Promise.all(
      users.map((u, i) =>
        t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/${i % 3 === 0 ? 'downvote' : 'upvote'}`, headers: u.headers }),
      ),
    );
    // the same user hammering both directions in parallel
    const u0 = users[0] as Who;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/${i % 2 ? 'upvote' : 'downvote'}`, headers: u0.headers }),
      ),
    );
    const rows = await t.ctx.db.select().from(postVotes).where(eq(postVotes.postId, post.id));
    const [p] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, post.id));
    expect(p?.upvotes).toBe(rows.filter((r) => r.value === 1).length);
    expect(p?.downvotes).toBe(rows.filter((r) => r.value === -1).length);
    expect((p?.upvotes ?? 0) + (p?.downvotes ?? 0)).toBeGreaterThanOrEqual(11);
  });

  it('comment votes have the same semantics', async () => {
    const post = await newPost();
    const c = await newComment(post.id);
    const v = (dir: string, h = stranger.headers) =>
      t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c.id}/${dir}`, headers: h });
    expect((await v('upvote')).json()).toEqual({ upvotes: 1, downvotes: 0, myVote: 1 });
    expect((await v('downvote')).json()).toEqual({ upvotes: 0, downvotes: 1, myVote: -1 });
    expect((await v('downvote', author.headers)).json()).toEqual({ upvotes: 0, downvotes: 2, myVote: -1 });
    expect((await v('downvote')).json()).toEqual({ upvotes: 0, downvotes: 1, myVote: null });
    const list = await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}/comments`, headers: author.headers });
    expect((list.json() as { items: unknown[] }).items[0]).toMatchObject({ downvotes: 1, myVote: -1 });
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c.id}/upvote` }), 401);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${MISSING}/upvote`, headers: author.headers }),
      404,
    );
    const otherPost = await newPost();
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${otherPost.id}/comments/${c.id}/upvote`, headers: author.headers }),
      404,
    );
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/zz/upvote`, headers: author.headers }),
      400,
    );
  });
});

describe('comments and answers', () => {
  it('a comment counts, and tells the post author (post_answered notification and tea drop), not when self-answering', async () => {
    const post = await newPost();
    const c = await newComment(post.id);
    expect(c).toMatchObject({ postId: post.id, authorId: answerer.id, isAccepted: false, isVerified: false, dna: false, myVote: null });
    const notes = (await notesOf(author.id, 'post_answered')).filter((n) => (n.data as { commentId?: string }).commentId === c.id);
    expect(notes).toHaveLength(1);
    expect((await dropsOf(author.id, 'post_answered')).filter((d) => d.refId === c.id)).toHaveLength(1);
    const own = await newComment(post.id, author, 'Self reply');
    expect((await notesOf(author.id, 'post_answered')).filter((n) => (n.data as { commentId?: string }).commentId === own.id)).toHaveLength(
      0,
    );
    const got = await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}` });
    expect(got.json()).toMatchObject({ commentCount: 2 });
  });

  it('notification settings switch kinds off', async () => {
    const quiet = await t.signIn('user');
    await t.ctx.db.insert(notificationSettings).values({ userId: quiet.id, kinds: { post_answered: false } });
    const post = await newPost({}, quiet);
    await newComment(post.id);
    expect(await notesOf(quiet.id, 'post_answered')).toHaveLength(0);
    expect(await dropsOf(quiet.id, 'post_answered')).toHaveLength(0);
  });

  it('comment create validates, needs sign-in, 404 on unknown or deleted posts', async () => {
    const post = await newPost();
    const add = (id: string, payload: object, h?: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: `/api/community/posts/${id}/comments`, ...(h ? { headers: h } : {}), payload });
    expectProblem(await add(post.id, { body: '' }, answerer.headers), 400);
    expectProblem(await add(post.id, { body: 'hi' }), 401);
    expectProblem(await add(MISSING, { body: 'hi' }, answerer.headers), 404);
    await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${post.id}`, headers: author.headers });
    expectProblem(await add(post.id, { body: 'hi' }, answerer.headers), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}/comments` }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/posts/${MISSING}/comments?limit=0` }), 400);
  });

  it('accept: post becomes answered, comment accepted, answerer notified; switching moves the mark', async () => {
    const post = await newPost();
    const c1 = await newComment(post.id);
    const c2 = await newComment(post.id, stranger, 'Another answer');
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c1.id}/accept`, headers: stranger.headers }),
      403,
    );
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${post.id}/comments/${c1.id}/accept`,
      headers: author.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ post: { status: 'answered', acceptedCommentId: c1.id }, comment: { id: c1.id, isAccepted: true } });
    const accepted = (await notesOf(answerer.id, 'post_answered')).filter((n) => (n.data as { commentId?: string }).commentId === c1.id);
    expect(accepted).toHaveLength(1);
    expect((await dropsOf(answerer.id, 'post_answered')).filter((d) => d.refId === c1.id)).toHaveLength(1);
    // again: no second notification
    await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c1.id}/accept`, headers: author.headers });
    expect(
      (await notesOf(answerer.id, 'post_answered')).filter((n) => (n.data as { commentId?: string }).commentId === c1.id),
    ).toHaveLength(1);
    // staff switch to c2
    const sw = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${post.id}/comments/${c2.id}/accept`,
      headers: moderator.headers,
    });
    expect(sw.json()).toMatchObject({ post: { acceptedCommentId: c2.id } });
    const rows = await t.ctx.db
      .select()
      .from(comments)
      .where(and(eq(comments.postId, post.id), eq(comments.isAccepted, true)));
    expect(rows.map((r) => r.id)).toEqual([c2.id]);
    const list = await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}/comments` });
    expect((list.json() as { items: { id: string }[] }).items[0]?.id).toBe(c2.id);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${MISSING}/accept`, headers: author.headers }),
      404,
    );
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c1.id}/accept` }), 401);
  });

  it('accept moved back and forth: each answerer hears once, the first time their comment is accepted', async () => {
    const post = await newPost();
    const c1 = await newComment(post.id);
    const c2 = await newComment(post.id, stranger, 'Another answer');
    const accept = async (c: { id: string }) =>
      expect(
        (await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c.id}/accept`, headers: author.headers }))
          .statusCode,
      ).toBe(200);
    for (let i = 0; i < 5; i++) {
      await accept(c1);
      await accept(c2);
    }
    for (const [who, c] of [
      [answerer, c1],
      [stranger, c2],
    ] as const) {
      const notes = (await notesOf(who.id, 'post_answered')).filter((n) => (n.data as { commentId?: string }).commentId === c.id);
      expect(notes.map((n) => n.title)).toEqual(['Your answer was accepted']);
      expect((await dropsOf(who.id, 'post_answered')).filter((d) => d.refId === c.id)).toHaveLength(1);
    }
  });

  it('verify: staff only; marks the comment verified and the post answered', async () => {
    const post = await newPost();
    const c = await newComment(post.id);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c.id}/verify`, headers: author.headers }),
      403,
    );
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${post.id}/comments/${c.id}/verify`,
      headers: moderator.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ isVerified: true, verifiedBy: moderator.id });
    const got = await t.app.inject({ method: 'GET', url: `/api/community/posts/${post.id}` });
    expect(got.json()).toMatchObject({ status: 'answered' });
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${MISSING}/verify`, headers: admin.headers }),
      404,
    );
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/bad/verify`, headers: admin.headers }),
      400,
    );
  });

  it('dna: the post author or staff mark "does not answer"; it feeds countUnansweredComments', async () => {
    const post = await newPost();
    const cs = [await newComment(post.id), await newComment(post.id, stranger, 'Nope'), await newComment(post.id, admin, 'Maybe')];
    const dna = (cid: string, method: 'PUT' | 'DELETE', h = author.headers) =>
      t.app.inject({ method, url: `/api/community/posts/${post.id}/comments/${cid}/dna`, headers: h });
    expectProblem(await dna(cs[0]?.id as string, 'PUT', stranger.headers), 403);
    const marked = await dna(cs[0]?.id as string, 'PUT');
    expect(marked.statusCode).toBe(200);
    expect(marked.json()).toMatchObject({ dna: true, dnaBy: author.id });
    await dna(cs[1]?.id as string, 'PUT', moderator.headers);
    await dna(cs[2]?.id as string, 'PUT');
    expect(await countUnansweredComments(t.ctx, post.id)).toBe(3);
    const cleared = await dna(cs[2]?.id as string, 'DELETE');
    expect(cleared.json()).toMatchObject({ dna: false, dnaBy: null });
    expect(await countUnansweredComments(t.ctx, post.id)).toBe(2);
    // Only a change is written and logged: unmarking an unmarked comment and re-marking a marked one
    // answer 200 as they are, log nothing, and keep who marked it first.
    const logged = async () => (await t.ctx.db.select().from(moderationLogs).where(eq(moderationLogs.targetUserId, author.id))).length;
    const logsBefore = await logged();
    for (let i = 0; i < 2; i++) expect((await dna(cs[2]?.id as string, 'DELETE', moderator.headers)).json()).toMatchObject({ dna: false });
    const remarked = await dna(cs[0]?.id as string, 'PUT', moderator.headers);
    expect(remarked.statusCode).toBe(200);
    expect(remarked.json()).toMatchObject({ dna: true, dnaBy: author.id });
    expect(await logged()).toBe(logsBefore);
    // accepting a dna comment clears its mark; an accepted comment cannot be marked
    await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${cs[0]?.id}/accept`, headers: author.headers });
    expect(await countUnansweredComments(t.ctx, post.id)).toBe(1);
    expectProblem(await dna(cs[0]?.id as string, 'PUT'), 422, 'COMMENT_IS_ANSWER');
    expectProblem(await dna(MISSING, 'PUT'), 404);
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${cs[1]?.id}/dna` }), 401);
  });

  it('a dna mark racing a verify never leaves a comment both verified and "does not answer"', async () => {
    const post = await newPost();
    for (let round = 0; round < 8; round++) {
      const c = await newComment(post.id, stranger, `Answer ${round}`);
      const url = `/api/community/posts/${post.id}/comments/${c.id}`;
      const [mark, verify] = await Promise.all([
        t.app.inject({ method: 'PUT', url: `${url}/dna`, headers: author.headers }),
        t.app.inject({ method: 'PUT', url: `${url}/verify`, headers: admin.headers }),
      ]);
      expect(verify.statusCode).toBe(200);
      expect([200, 422]).toContain(mark.statusCode);
      const [row] = await t.ctx.db.select().from(comments).where(eq(comments.id, c.id));
      expect(row).toMatchObject({ isVerified: true, dna: false });
    }
  });
});

describe('convert a post to a FAQ', () => {
  it('staff convert using the accepted answer: FAQ source community_post, linked both ways, embedded, dropped', async () => {
    const post = await newPost({ title: 'What is the refund policy?' });
    const c = await newComment(post.id, answerer, 'Full refund within 14 days.');
    await t.app.inject({ method: 'PUT', url: `/api/community/posts/${post.id}/comments/${c.id}/accept`, headers: author.headers });
    const before = sent().length;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/community/posts/${post.id}/convert`,
      headers: moderator.headers,
    });
    expect(res.statusCode).toBe(201);
    const body = res.json() as { faq: { id: string }; post: { convertedFaqId: string } };
    expect(body.faq).toMatchObject({
      question: 'What is the refund policy?',
      answer: 'Full refund within 14 days.',
      source: 'community_post',
      sourceId: post.id,
      reviewStatus: 'approved',
      batchId: defaultId,
    });
    expect(body.post.convertedFaqId).toBe(body.faq.id);
    expect(sent().slice(before)).toEqual([{ name: 'search.embed-row', payload: { table: 'faqs', id: body.faq.id } }]);
    expect(await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, body.faq.id))).toMatchObject([
      { kind: 'faq_approved' },
    ]);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/convert`, headers: moderator.headers, payload: {} }),
      409,
    );
  });

  it('uses a given answer; without any answer it is 422; needs staff; 404', async () => {
    const post = await newPost({ title: 'Unanswered for convert?', batchId: programB });
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/community/posts/${post.id}/convert`, headers: admin.headers, payload: {} }),
      422,
      'NO_ANSWER',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/api/community/posts/${post.id}/convert`,
        headers: author.headers,
        payload: { answer: 'x' },
      }),
      403,
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/api/community/posts/${post.id}/convert`,
        headers: admin.headers,
        payload: { answer: 'x', extra: true },
      }),
      400,
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/api/community/posts/${MISSING}/convert`,
        headers: admin.headers,
        payload: { answer: 'x' },
      }),
      404,
    );
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/community/posts/${post.id}/convert`,
      headers: admin.headers,
      payload: { answer: 'Given answer', question: 'Rephrased question?', freshnessTier: 'seasonal' },
    });
    expect(res.statusCode).toBe(201);
    const faq = (res.json() as { faq: { id: string } }).faq;
    expect(faq).toMatchObject({ answer: 'Given answer', question: 'Rephrased question?', batchId: programB, reviewIntervalDays: 15 });
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, faq.id));
    expect(row?.sourceId).toBe(post.id);
  });
});

describe('program isolation across content', () => {
  it('content of program B never appears in the default program public reads', async () => {
    const bPost = await newPost({ title: 'Isolated B post', batchId: programB });
    const bFaq = (
      await t.app.inject({
        method: 'POST',
        url: '/api/faq',
        headers: admin.headers,
        payload: { question: 'Isolated B FAQ?', answer: 'B', batchId: programB },
      })
    ).json() as { id: string };
    const posts = await t.app.inject({ method: 'GET', url: '/api/community/posts?limit=100' });
    expect((posts.json() as { items: PostJson[] }).items.some((p) => p.id === bPost.id)).toBe(false);
    const faqList = await t.app.inject({ method: 'GET', url: '/api/faq?limit=100' });
    expect((faqList.json() as { items: { id: string }[] }).items.some((f) => f.id === bFaq.id)).toBe(false);
    // archiving B hides its posts from the public even by id
    await t.app.inject({ method: 'POST', url: `/api/batches/${programB}/archive`, headers: admin.headers });
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/posts/${bPost.id}` }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${bFaq.id}` }), 404);
    expect((await t.app.inject({ method: 'GET', url: `/api/community/posts/${bPost.id}`, headers: admin.headers })).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/batches/${programB}/unarchive`, headers: admin.headers });
  });
});
