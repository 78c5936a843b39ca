import { adminLogs, faqReports } from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
let moderator: Who;
let user: Who;
let other: Who;

beforeAll(async () => {
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, RATE_LIMIT_SUGGEST_MAX: '3', RATE_LIMIT_FLAG_MAX: '3' } });
  [admin, moderator, user, other] = await Promise.all([t.signIn('admin'), t.signIn('moderator'), t.signIn('user'), t.signIn('user')]);
});
afterAll(async () => {
  await t.close();
});

const inject = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, who?: Who, payload?: object) =>
  t.app.inject({ method, url, ...(who ? { headers: who.headers } : {}), ...(payload ? { payload } : {}) });

async function newFaq(question: string) {
  const res = await inject('POST', '/api/faq', admin, { question, answer: 'An answer.' });
  expect(res.statusCode).toBe(201);
  return res.json().id as string;
}

describe('per-user limits on content writes', () => {
  it('one open report per user per FAQ; another after staff closed it', async () => {
    const id = await newFaq('Report once?');
    expect((await inject('POST', `/api/faq/${id}/report`, user, { reason: 'Outdated link' })).statusCode).toBe(201);
    expectProblem(await inject('POST', `/api/faq/${id}/report`, user, { reason: 'Still outdated' }), 409, 'REPORT_ALREADY_OPEN');
    // Another user may report the same FAQ.
    expect((await inject('POST', `/api/faq/${id}/report`, other, { reason: 'Wrong date' })).statusCode).toBe(201);
    await t.ctx.db
      .update(faqReports)
      .set({ status: 'resolved' })
      .where(and(eq(faqReports.faqId, id), eq(faqReports.reporterId, user.id)));
    expect((await inject('POST', `/api/faq/${id}/report`, user, { reason: 'Broken again' })).statusCode).toBe(201);
    // Concurrent duplicates: exactly one is stored.
    const id2 = await newFaq('Report race?');
    const both = await Promise.all([1, 2, 3].map(() => inject('POST', `/api/faq/${id2}/report`, moderator, { reason: 'race' })));
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
  });

  it('suggestions are rate limited per user', async () => {
    const suggest = (who: Who, n: number) => inject('POST', '/api/faq/suggest', who, { question: `Could we add question ${n}?` });
    for (let i = 0; i < 3; i++) expect((await suggest(user, i)).statusCode).toBe(201);
    const limited = await suggest(user, 4);
    expectProblem(limited, 429);
    expect(limited.headers['retry-after']).toBeDefined();
    // Another user has their own budget.
    expect((await suggest(other, 5)).statusCode).toBe(201);
  });

  it('flags are rate limited per user', async () => {
    const ids = await Promise.all([1, 2, 3, 4].map((i) => newFaq(`Flag limit ${i}?`)));
    for (const id of ids.slice(0, 3))
      expect((await inject('POST', `/api/faq/${id}/flag`, other, { reason: 'stale info' })).statusCode).toBe(200);
    expectProblem(await inject('POST', `/api/faq/${ids[3]}/flag`, other, { reason: 'stale info' }), 429);
    expect((await inject('POST', `/api/faq/${ids[3]}/flag`, moderator, { reason: 'stale info' })).statusCode).toBe(200);
  });

  it('nobody votes on their own post or comment', async () => {
    const post = (await inject('POST', '/api/community/posts', user, { title: 'My own post', body: 'Please help.' })).json();
    expectProblem(await inject('POST', `/api/community/posts/${post.id}/upvote`, user), 403, 'CANNOT_VOTE_OWN');
    expectProblem(await inject('POST', `/api/community/posts/${post.id}/downvote`, user), 403, 'CANNOT_VOTE_OWN');
    expect((await inject('POST', `/api/community/posts/${post.id}/upvote`, other)).json()).toMatchObject({ upvotes: 1, myVote: 1 });
    const comment = (await inject('POST', `/api/community/posts/${post.id}/comments`, other, { body: 'Try this.' })).json();
    const url = `/api/community/posts/${post.id}/comments/${comment.id}`;
    expectProblem(await inject('PUT', `${url}/upvote`, other), 403, 'CANNOT_VOTE_OWN');
    expect((await inject('PUT', `${url}/upvote`, user)).json()).toMatchObject({ upvotes: 1 });
  });
});

describe('text people read holds visible characters', () => {
  it('padding or zero-width characters cannot make up a FAQ question or answer, or a post title or body: 400 naming the field', async () => {
    const zw = '\u200b'.repeat(6);
    const cases: [string, object, string][] = [
      ['/api/faq', { question: '    x', answer: 'An answer.' }, 'body.question'],
      ['/api/faq', { question: zw, answer: 'An answer.' }, 'body.question'],
      ['/api/faq', { question: 'A real question?', answer: '\u2060\u200b ' }, 'body.answer'],
      ['/api/community/posts', { title: '    x', body: 'Some details.' }, 'body.title'],
      ['/api/community/posts', { title: 'A real title', body: `${zw}\n` }, 'body.body'],
    ];
    for (const [url, payload, path] of cases) {
      const res = await inject('POST', url, admin, payload);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.json().errors, JSON.stringify(payload)).toEqual([{ path, message: expect.stringMatching(/visible character/) }]);
    }
    // A person's or a program's name too.
    const profile = await inject('PATCH', '/api/auth/profile', user, { name: '\u200b' });
    expect(expectProblem(profile, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body.name');
    const program = await inject('POST', '/api/batches', admin, { name: ' \u2060 ' });
    expect(expectProblem(program, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body.name');
    // Five visible characters among spaces are a question; inner spaces are fine.
    expect((await inject('POST', '/api/faq', admin, { question: '  Why  so? ', answer: 'x' })).statusCode).toBe(201);
  });
});

describe('the admin log records program and FAQ administration', () => {
  it('program create, edit, archive, unarchive, default, settings, delete and FAQ deletes', async () => {
    const created = await inject('POST', '/api/batches', admin, { name: 'Logged program' });
    const id = created.json().id as string;
    expect((await inject('PATCH', `/api/batches/${id}`, admin, { description: 'Edited' })).statusCode).toBe(200);
    expect((await inject('POST', `/api/batches/${id}/archive`, admin)).statusCode).toBe(200);
    // Again: a no-op that answers the program as it is and logs nothing.
    const again = await inject('POST', `/api/batches/${id}/archive`, admin);
    expect(again.statusCode).toBe(200);
    expect(again.json().archivedAt).toBeTruthy();
    expect((await inject('POST', `/api/batches/${id}/unarchive`, admin)).statusCode).toBe(200);
    expect((await inject('POST', `/api/batches/${id}/unarchive`, admin)).json().archivedAt).toBeNull();
    const settings = (await inject('GET', `/api/batches/${id}/settings`, admin)).json();
    const { theme, hero, sections, branding } = settings;
    const body = { theme, hero, sections, branding };
    expect((await inject('PUT', `/api/batches/${id}/settings`, admin, body)).statusCode).toBe(200);
    const previous = (await inject('GET', '/api/batches', admin)).json().items.find((p: { isDefault: boolean }) => p.isDefault).id;
    expect((await inject('POST', `/api/batches/${id}/default`, admin)).statusCode).toBe(200);
    expect((await inject('POST', `/api/batches/${id}/default`, admin)).json().isDefault).toBe(true);
    expect((await inject('POST', `/api/batches/${previous}/default`, admin)).statusCode).toBe(200);
    expect((await inject('DELETE', `/api/batches/${id}`, admin)).statusCode).toBe(204);
    const rows = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, id));
    expect(rows.map((r) => r.action).sort()).toEqual(
      [
        'program.archived',
        'program.created',
        'program.default_set',
        'program.deleted',
        'program.settings_updated',
        'program.unarchived',
        'program.updated',
      ].sort(),
    );
    for (const r of rows) expect(r).toMatchObject({ actorId: admin.id, targetType: 'Program' });

    const faqId = await newFaq('Deleted and logged?');
    expect((await inject('DELETE', `/api/faq/${faqId}`, moderator)).statusCode).toBe(204);
    const [log] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, faqId));
    expect(log).toMatchObject({
      action: 'faq.deleted',
      actorId: moderator.id,
      targetType: 'FAQ',
      details: { question: 'Deleted and logged?' },
    });
    const listed = (await inject('GET', '/api/moderation/logs?kind=admin&limit=100', admin)).json() as { items: { action: string }[] };
    expect(listed.items.map((i) => i.action)).toEqual(expect.arrayContaining(['faq.deleted', 'program.created']));
  });
});
