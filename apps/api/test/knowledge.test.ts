import {
  confExtractInsightsJob,
  confProcessMeetingJob,
  deletePost,
  type Embedder,
  extractInsights,
  knowledgeChat,
  type MemoryJobQueue,
  processUpvotes,
} from '@cfaq/core';
import { documentInsights } from '@cfaq/db/schema/index';
import {
  createKnowledge,
  type FakeAiServer,
  openaiAdapter,
  startFakeAiServer,
  startFakeOllama,
  startFakeOpenAI,
  unitVector,
} from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

let ai: FakeAiServer;
let t: TestApp;
let admin: Awaited<ReturnType<TestApp['signIn']>>;

const VTT = [
  'WEBVTT',
  '',
  '00:00:01.000 --> 00:00:05.000',
  'Alice Host: Welcome everyone to the orientation about laptops and the lending desk.',
  '',
  '00:00:05.500 --> 00:00:09.000',
  'Bob Learner: Can I borrow a laptop from the program for the whole term?',
  '',
  '00:00:09.500 --> 00:00:15.000',
  'Alice Host: Yes, the lending desk lends laptops for the whole term; bring your student card.',
].join('\n');

beforeAll(async () => {
  ai = await startFakeOpenAI();
  t = await createTestApp({
    env: {
      ...GENEROUS_LIMITS,
      OPENAI_API_KEY: ai.apiKey,
      OPENAI_BASE_URL: ai.baseUrl,
      AI_RETRY_BASE_MS: '1',
      AI_MAX_RETRIES: '0',
      AI_TIMEOUT_MS: '5000',
    },
  });
  admin = await t.signIn('admin');
});
afterAll(async () => {
  await t?.close();
  await ai?.close();
});

describe('path A: insights through the AI provider', () => {
  it('an uploaded transcript yields pending_review insights with the speaker and cue times of the line the model named', async () => {
    ai.reply = (call) => {
      if (call.prompt.includes('numbered lines')) {
        return {
          insights: [
            { question: 'Can I borrow a laptop for the term?', answer: 'Yes, from the lending desk with a student card.', segment: 2 },
            { question: 'Bogus', answer: 'x', segment: 99 },
          ],
        };
      }
      return { answerable: false, answer: '', sourceIds: [] };
    };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: admin.headers,
      payload: {
        rawText: VTT.split('\n')
          .filter((l) => l.includes(': '))
          .join('\n'),
        source: 'manual_raw',
        topic: 'Laptops',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ insightCount: 1 });
    const vtt = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: { ...admin.headers, 'content-type': 'multipart/form-data; boundary=b' },
      payload: `--b\r\nContent-Disposition: form-data; name="source"\r\n\r\nmanual_vtt\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="laptops.vtt"\r\n\r\n${VTT}\r\n--b--\r\n`,
    });
    expect(vtt.statusCode).toBe(201);
    const { meetingId } = vtt.json() as { meetingId: string };
    const list = await t.app.inject({ method: 'GET', url: `/api/conf/insights?meetingId=${meetingId}`, headers: admin.headers });
    const items = (list.json() as { items: { status: string; speaker: string; context: string; question: string }[] }).items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'pending_review', speaker: 'Alice Host', question: 'Can I borrow a laptop for the term?' });
    expect(items[0]?.context).toMatch(/^\[00:00:09-00:00:15\] Alice Host: Yes, the lending desk/);
    // The cue times as numbers (milliseconds), the raw-text upload's insight without any.
    expect(items[0]).toMatchObject({ cueStartMs: 9500, cueEndMs: 15000 });
    const all = (await t.app.inject({ method: 'GET', url: '/api/conf/insights?limit=100', headers: admin.headers })).json() as {
      items: { meetingId: string; cueStartMs: number | null; cueEndMs: number | null; context: string }[];
    };
    const raw = all.items.find((i) => i.meetingId === (res.json() as { meetingId: string }).meetingId);
    expect(raw).toMatchObject({
      cueStartMs: null,
      cueEndMs: null,
      context: 'Alice Host: Yes, the lending desk lends laptops for the whole term; bring your student card.',
    });
  });
});

describe('knowledge routes', () => {
  it('lists knowledge, searches it, ingests a document, approves, rejects and promotes', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/knowledge?type=transcript', headers: admin.headers });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { total: number }).total).toBeGreaterThan(0);
    // The spec's spelling, GET /knowledge/ (list), is the same route.
    const slashed = await t.app.inject({ method: 'GET', url: '/api/knowledge/?type=transcript', headers: admin.headers });
    expect(slashed.json()).toEqual(list.json());

    const ing = await t.app.inject({
      method: 'POST',
      url: '/api/knowledge/ingest',
      headers: admin.headers,
      payload: { title: 'Parking policy', content: 'Visitors park in lot C.\nStudents with a permit park in lot A after 5pm.' },
    });
    expect(ing.statusCode).toBe(201);
    const doc = (ing.json() as { items: { id: string; status: string; embedded: boolean; type: string }[] }).items[0];
    expect(doc).toMatchObject({ status: 'approved', embedded: true, type: 'document' });

    const search = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/search?q=${encodeURIComponent('where do visitors park')}`,
      headers: admin.headers,
    });
    expect(search.statusCode).toBe(200);
    expect((search.json() as { results: { id: string }[] }).results[0]?.id).toBe(doc?.id);
    const laptop = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/search?q=${encodeURIComponent('borrow a laptop lending desk')}`,
      headers: admin.headers,
    });
    expect((laptop.json() as { results: { sourceType: string; meetingId: string | null }[] }).results[0]).toMatchObject({
      sourceType: 'transcript_knowledge',
    });

    const rej = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${doc?.id}/reject`, headers: admin.headers });
    expect(rej.json()).toMatchObject({ status: 'rejected' });
    const gone = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/search?q=${encodeURIComponent('where do visitors park')}`,
      headers: admin.headers,
    });
    expect((gone.json() as { results: { id: string }[] }).results.map((r) => r.id)).not.toContain(doc?.id);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/knowledge/${doc?.id}/promote`, headers: admin.headers }),
      422,
      'KNOWLEDGE_REJECTED',
    );
    expect((await t.app.inject({ method: 'PUT', url: `/api/knowledge/${doc?.id}/approve`, headers: admin.headers })).json()).toMatchObject({
      status: 'approved',
    });
    const pro = await t.app.inject({
      method: 'PUT',
      url: `/api/knowledge/${doc?.id}/promote`,
      headers: admin.headers,
      payload: { question: 'Where can visitors park?' },
    });
    expect(pro.statusCode).toBe(200);
    expect(pro.json()).toMatchObject({
      faq: { question: 'Where can visitors park?', reviewStatus: 'approved' },
      item: { status: 'promoted' },
    });
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/knowledge/${doc?.id}/promote`, headers: admin.headers }), 409);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: '/api/knowledge/00000000-0000-4000-8000-000000000000/approve', headers: admin.headers }),
      404,
    );
  });

  it('chat answers from the knowledge base citing its sources, and says "I don\'t know" otherwise', async () => {
    ai.reply = (call) => {
      const id = /\[([0-9a-f-]{36})\] Laptops/.exec(call.prompt)?.[1];
      return id
        ? { answerable: true, answer: 'Yes: the lending desk lends laptops for the term.', sourceIds: [id] }
        : { answerable: false, answer: '', sourceIds: [] };
    };
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/chat?q=${encodeURIComponent('can I borrow a laptop for the term')}`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { answered: boolean; answer: string; sources: { title: string }[] };
    expect(body.answered).toBe(true);
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.sources[0]?.title).toMatch(/Laptops/);
    ai.reply = () => ({ answerable: false, answer: '', sourceIds: [] });
    const unknown = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/chat?q=${encodeURIComponent('what colour is the chancellor car')}`,
      headers: admin.headers,
    });
    expect(unknown.json()).toMatchObject({ answered: false, sources: [] });
    // An answer of invisible characters citing a real source is no answer (it was answered: true).
    ai.reply = (call) => ({
      answerable: true,
      answer: '\u200b\u2060 \u200b',
      sourceIds: [/\[([0-9a-f-]{36})\] Laptops/.exec(call.prompt)?.[1] ?? ''],
    });
    const invisible = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/chat?q=${encodeURIComponent('can I borrow a laptop for the term')}`,
      headers: admin.headers,
    });
    expect(invisible.json()).toMatchObject({ answered: false, sources: [] });
    ai.reply = () => ({ answerable: false, answer: '', sourceIds: [] });
    // A blank question is refused, as POST /search refuses a blank query.
    for (const path of ['chat', 'search']) {
      const blank = await t.app.inject({ method: 'GET', url: `/api/knowledge/${path}?q=%20%20%20`, headers: admin.headers });
      expectProblem(blank, 400, 'VALIDATION_FAILED');
    }
    expect((unknown.json() as { answer: string }).answer).toMatch(/I don't know/);
    // The provider down: not answered, and the text does not claim the knowledge base lacks the answer.
    // Every attempt of the one call fails (the first and its retries), and no fault is left for later tests.
    ai.failNext(500, t.ctx.config.AI_MAX_RETRIES + 1);
    const down = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/chat?q=${encodeURIComponent('can I borrow a laptop for the term')}`,
      headers: admin.headers,
    });
    expect(down.json()).toMatchObject({ answered: false, sources: [], reason: expect.any(String) });
    expect((down.json() as { answer: string }).answer).toMatch(/AI provider is not available.*found [1-9]/);
    // A reply that does not parse came from an available provider: the text says so.
    ai.malformedNext();
    const unreadable = await t.app.inject({
      method: 'GET',
      url: `/api/knowledge/chat?q=${encodeURIComponent('can I borrow a laptop for the term')}`,
      headers: admin.headers,
    });
    expect((unreadable.json() as { answer: string }).answer).toMatch(/^No answer was written: the AI provider’s reply could not be read/);
    // A provider that answered with a refusal was available: the text says what happened.
    const refusing = await startFakeAiServer({
      ...openaiAdapter,
      success: (call, text, value, usage) => {
        const body = openaiAdapter.success(call, text, value, usage) as { output: { content: unknown[] }[] };
        (body.output[0] as { content: unknown[] }).content = [{ type: 'refusal', refusal: "I can't help with that." }];
        return body;
      },
    });
    try {
      const config = (payload: Record<string, unknown>) =>
        t.app.inject({ method: 'PATCH', url: '/api/admin/ai/config', headers: admin.headers, payload });
      await config({ apiKeys: { openai: refusing.apiKey }, baseUrls: { openai: refusing.baseUrl } });
      const refused = await t.app.inject({
        method: 'GET',
        url: `/api/knowledge/chat?q=${encodeURIComponent('can I borrow a laptop for the term')}`,
        headers: admin.headers,
      });
      expect(refused.json()).toMatchObject({ answered: false, reason: expect.stringMatching(/refused/) });
      expect((refused.json() as { answer: string }).answer).toMatch(
        /^No answer was written: the AI provider refused to answer\. .*found [1-9]/,
      );
      await config({ apiKeys: { openai: null }, baseUrls: { openai: null } });
    } finally {
      await refusing.close();
    }
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/knowledge/chat', headers: admin.headers }), 400);
  });

  it('process-meeting queues the re-processing of a meeting', async () => {
    const meetings = await t.app.inject({ method: 'GET', url: '/api/conf/meetings', headers: admin.headers });
    const id = (meetings.json() as { items: { id: string }[] }).items[0]?.id;
    const res = await t.app.inject({ method: 'POST', url: `/api/knowledge/process-meeting/${id}`, headers: admin.headers });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ id, status: 'pending' });
  });

  /** A raw-text transcript uploaded by the admin: its meeting id. */
  const uploadRaw = async (topic: string, rawText: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/api/conf/upload-transcript',
        headers: admin.headers,
        payload: { source: 'manual_raw', topic, rawText },
      })
    ).json().meetingId as string;
  /** The route marks the meeting pending and queues the job; the job runs here as the worker would. */
  const reprocess = async (meetingId: string) => {
    const queued = await t.app.inject({ method: 'POST', url: `/api/knowledge/process-meeting/${meetingId}`, headers: admin.headers });
    expect(queued.statusCode).toBe(202);
    await confProcessMeetingJob.handler(t.ctx, { meetingId }, { id: 'test', retryCount: 0 } as never);
  };

  it('re-processing keeps what an admin rejected rejected: the text does not come back approved', async () => {
    const meetingId = await uploadRaw('Rejected once', 'Host: The quiet room on floor two closes at eight on Fridays.');
    const rows = async () =>
      (await t.app.inject({ method: 'GET', url: `/api/knowledge?meetingId=${meetingId}&limit=100`, headers: admin.headers })).json()
        .items as { id: string; status: string; content: string }[];
    const [row] = await rows();
    expect(row?.status).toBe('approved');
    expect((await t.app.inject({ method: 'PUT', url: `/api/knowledge/${row?.id}/reject`, headers: admin.headers })).statusCode).toBe(200);
    await reprocess(meetingId);
    const meeting = await t.app.inject({ method: 'GET', url: `/api/conf/meetings/${meetingId}`, headers: admin.headers });
    expect(meeting.json().status).toBe('completed');
    const after = await rows();
    expect(after.map((r) => [r.id, r.status])).toEqual([[row?.id, 'rejected']]);
  });

  it('re-processing does not offer again an insight an admin already decided', async () => {
    ai.reply = (call) =>
      call.prompt.includes('numbered lines')
        ? { insights: [{ question: 'When does the quiet room close?', answer: 'At eight on Fridays.', segment: 0 }] }
        : { answerable: false, answer: '', sourceIds: [] };
    const meetingId = await uploadRaw('Decided once', 'Host: The quiet room on floor three closes at eight on Fridays.');
    const insights = async () =>
      (await t.app.inject({ method: 'GET', url: `/api/conf/insights?meetingId=${meetingId}&limit=100`, headers: admin.headers })).json()
        .items as { id: string; status: string }[];
    const [first] = await insights();
    expect(first?.status).toBe('pending_review');
    await t.app.inject({ method: 'PUT', url: `/api/conf/insights/${first?.id}`, headers: admin.headers, payload: { status: 'approved' } });
    await reprocess(meetingId);
    expect((await insights()).map((i) => [i.id, i.status])).toEqual([[first?.id, 'approved']]);
    const meeting = await t.app.inject({ method: 'GET', url: `/api/conf/meetings/${meetingId}`, headers: admin.headers });
    expect(meeting.json()).toMatchObject({ status: 'completed', insightCount: 1 });
  });
});

describe('knowledge made from community answers', () => {
  /** A post whose accepted answer has 3 upvotes, turned into knowledge by process-upvotes. */
  async function answeredPostKnowledge(title: string, answer: string) {
    const { author, postId, commentId } = await answeredPost(title, answer);
    const made = await t.app.inject({ method: 'POST', url: '/api/knowledge/process-upvotes', headers: admin.headers });
    expect(made.statusCode, made.body).toBe(200);
    const item = (made.json() as { items: { id: string; sourceRef: string; status: string }[] }).items.find(
      (i) => i.sourceRef === commentId,
    );
    expect(item).toMatchObject({ status: 'approved' });
    return { author, postId, commentId, itemId: item?.id as string };
  }
  /** A post whose accepted answer has 3 upvotes. */
  async function answeredPost(title: string, answer: string) {
    const author = await t.signIn('user');
    const answerer = await t.signIn('user');
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/community/posts',
      headers: author.headers,
      payload: { title, body: `${title} I could not find it anywhere on the site.` },
    });
    expect(post.statusCode, post.body).toBe(201);
    const postId = post.json().id as string;
    const comment = await t.app.inject({
      method: 'POST',
      url: `/api/community/posts/${postId}/comments`,
      headers: answerer.headers,
      payload: { body: answer },
    });
    expect(comment.statusCode, comment.body).toBe(201);
    const commentId = comment.json().id as string;
    for (let i = 0; i < 3; i++) {
      const voter = await t.signIn('user');
      const vote = await t.app.inject({
        method: 'PUT',
        url: `/api/community/posts/${postId}/comments/${commentId}/upvote`,
        headers: voter.headers,
      });
      expect(vote.statusCode, vote.body).toBe(200);
    }
    const accept = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${postId}/comments/${commentId}/accept`,
      headers: author.headers,
    });
    expect(accept.statusCode, accept.body).toBe(200);
    return { author, postId, commentId };
  }
  const publicSearch = async (query: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/search', payload: { query } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { results: { id: string; source: string; snippet: string }[] }).results;
  };
  const knowledgeSearch = async (q: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/knowledge/search?q=${encodeURIComponent(q)}`, headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { results: { id: string }[] }).results.map((r) => r.id);
  };
  const chatSources = async (q: string) => {
    // The model cites every item it is given: whatever reaches the chat's context shows up as a source.
    ai.reply = (call) => {
      const ids = [...call.prompt.matchAll(/\[([0-9a-f-]{36})\]/g)].map((m) => m[1] as string);
      return ids.length > 0
        ? { answerable: true, answer: 'From the knowledge base.', sourceIds: ids }
        : { answerable: false, answer: '', sourceIds: [] };
    };
    const res = await t.app.inject({ method: 'GET', url: `/api/knowledge/chat?q=${encodeURIComponent(q)}`, headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { sources: { id: string }[] }).sources.map((s) => s.id);
  };

  it('a deleted post takes its knowledge out of every search and the chat; it is listed rejected and not made again', async () => {
    const query = 'how do I book a tuba practice room';
    const { author, postId, itemId } = await answeredPostKnowledge(
      'How do I book a tuba practice room?',
      'Tuba practice rooms are booked at the music office desk with your student card, two hours a day at most.',
    );
    const before = await publicSearch(query);
    expect(before.find((r) => r.id === itemId)).toMatchObject({ source: 'document_insight' });
    expect(await knowledgeSearch(query)).toContain(itemId);
    expect(await chatSources(query)).toContain(itemId);

    const del = await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${postId}`, headers: author.headers });
    expect(del.statusCode).toBe(204);
    // The same query again: the cached answer went with the write.
    const after = await publicSearch(query);
    expect(after.map((r) => r.id)).not.toContain(itemId);
    expect(after.map((r) => r.id)).not.toContain(postId);
    expect(after.some((r) => r.snippet.includes('music office desk'))).toBe(false);
    expect(await knowledgeSearch(query)).not.toContain(itemId);
    expect(await chatSources(query)).not.toContain(itemId);

    const listed = await t.app.inject({ method: 'GET', url: '/api/knowledge?status=rejected&limit=100', headers: admin.headers });
    expect((listed.json() as { items: { id: string }[] }).items.map((i) => i.id)).toContain(itemId);
    const again = await t.app.inject({ method: 'POST', url: '/api/knowledge/process-upvotes', headers: admin.headers });
    expect(again.json()).toMatchObject({ created: 0 });
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/knowledge/${itemId}/approve`, headers: admin.headers }),
      422,
      'KNOWLEDGE_SOURCE_DELETED',
    );
    expect(await knowledgeSearch(query)).not.toContain(itemId);
  });

  it('a moderator deleting the post withdraws it too; knowledge of live posts stays and can be re-approved', async () => {
    const gone = await answeredPostKnowledge(
      'Where do I return a borrowed oboe?',
      'Borrowed oboes go back to the instrument cupboard next to the music office, signed in the ledger.',
    );
    const kept = await answeredPostKnowledge(
      'Where do I collect a rented cello?',
      'Rented cellos are collected from the basement store room on Mondays after ten.',
    );
    const moderator = await t.signIn('moderator');
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${gone.postId}`, headers: moderator.headers })).statusCode,
    ).toBe(204);
    expect(await knowledgeSearch('where do I return a borrowed oboe')).not.toContain(gone.itemId);
    expect(await knowledgeSearch('where do I collect a rented cello')).toContain(kept.itemId);
    // A live post's item still moves freely between rejected and approved.
    expect((await t.app.inject({ method: 'PUT', url: `/api/knowledge/${kept.itemId}/reject`, headers: admin.headers })).statusCode).toBe(
      200,
    );
    const back = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${kept.itemId}/approve`, headers: admin.headers });
    expect(back.json()).toMatchObject({ status: 'approved' });
  });

  it('runs of process-upvotes at once make each comment knowledge once', async () => {
    const { commentId } = await answeredPost('How do I book a study room at once?', 'Book it at the front desk or online the day before.');
    const runs = await Promise.all(
      [1, 2, 3].map(() => t.app.inject({ method: 'POST', url: '/api/knowledge/process-upvotes', headers: admin.headers })),
    );
    expect(runs.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    const rows = await t.ctx.db.select().from(documentInsights).where(eq(documentInsights.sourceRef, commentId));
    expect(rows).toHaveLength(1);
    expect(
      runs.reduce((n, r) => n + (r.json() as { items: { sourceRef: string }[] }).items.filter((i) => i.sourceRef === commentId).length, 0),
    ).toBe(1);
  });

  it('a reject racing a promote: the answers agree with the outcome', async () => {
    for (let round = 0; round < 4; round++) {
      const ingest = await t.app.inject({
        method: 'POST',
        url: '/api/knowledge/ingest',
        headers: admin.headers,
        payload: { title: `Racing item ${round}`, content: `Lockers are on floor ${round + 2}, next to the lifts.` },
      });
      const id = (ingest.json() as { items: { id: string }[] }).items[0]?.id;
      const [promote, reject] = await Promise.all([
        t.app.inject({ method: 'PUT', url: `/api/knowledge/${id}/promote`, headers: admin.headers, payload: { faqId: null } }),
        t.app.inject({ method: 'PUT', url: `/api/knowledge/${id}/reject`, headers: admin.headers }),
      ]);
      const [row] = await t.ctx.db
        .select()
        .from(documentInsights)
        .where(eq(documentInsights.id, id as string));
      if (promote.statusCode === 200) {
        expectProblem(reject, 422, 'KNOWLEDGE_PROMOTED');
        expect(row).toMatchObject({ status: 'promoted' });
      } else {
        expectProblem(promote, 422, 'KNOWLEDGE_REJECTED');
        expect(reject.json()).toMatchObject({ status: 'rejected' });
        expect(row).toMatchObject({ status: 'rejected', promotedFaqId: null });
      }
    }
  });

  it('a post deleted while process-upvotes computes its embeddings gets no knowledge', async () => {
    const { author, postId, commentId } = await answeredPost(
      'Where is the harp tuning key kept?',
      'The harp tuning key hangs on the hook inside the percussion store, behind the timpani.',
    );
    // The delete lands between the read of the candidates and the write of the rows.
    const embedder = Object.create(t.ctx.embedder) as typeof t.ctx.embedder;
    let deleted = false;
    embedder.embed = async (texts) => {
      if (!deleted) await deletePost(t.ctx, { id: author.id, role: 'user' }, postId);
      deleted = true;
      return t.ctx.embedder.embed(texts);
    };
    const made = await processUpvotes({ ...t.ctx, embedder }, {});
    expect(made.items.map((i) => i.sourceRef)).not.toContain(commentId);
    const rows = await t.ctx.db.select().from(documentInsights).where(eq(documentInsights.sourceRef, commentId));
    expect(rows).toEqual([]);
  });
});

describe('path A when the AI call fails', () => {
  const sent = () => (t.jobs as MemoryJobQueue).sent;
  const failAiCall = () => ai.failNext(500, t.ctx.config.AI_MAX_RETRIES + 1);
  const answering = () => {
    ai.reply = (call) =>
      call.prompt.includes('numbered lines')
        ? { insights: [{ question: 'When does the pottery studio open?', answer: 'At nine on weekdays.', segment: 0 }] }
        : { answerable: false, answer: '', sourceIds: [] };
  };
  const upload = async (topic: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: admin.headers,
      payload: { source: 'manual_raw', topic, rawText: 'Host: The pottery studio opens at nine on weekdays and at ten on Saturdays.' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { meetingId: string; insightCount: number; insightsStatus: string; insightsError: string | null };
  };
  const meeting = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/conf/meetings/${id}`, headers: admin.headers })).json() as {
      status: string;
      insightCount: number;
      insightsStatus: string | null;
      insightsError: string | null;
      error: string | null;
    };
  const insights = async (meetingId: string) =>
    (
      (
        await t.app.inject({ method: 'GET', url: `/api/conf/insights?meetingId=${meetingId}&limit=100`, headers: admin.headers })
      ).json() as {
        items: { id: string; question: string }[];
      }
    ).items;
  const runRetry = (meetingId: string, retryCount: number) =>
    confExtractInsightsJob.handler(t.ctx, { meetingId }, { id: 'retry', retryCount } as never);

  it('the meeting says so (retrying, with the reason), and the queued extract-insights job runs path A again, once', async () => {
    const before = sent().length;
    failAiCall();
    const up = await upload('Pottery studio');
    expect(up).toMatchObject({ insightCount: 0, insightsStatus: 'retrying', insightsError: expect.stringMatching(/500/) });
    const { meetingId } = up;
    expect(await meeting(meetingId)).toMatchObject({
      status: 'completed',
      insightCount: 0,
      error: null,
      insightsStatus: 'retrying',
      insightsError: expect.stringMatching(/500/),
    });
    expect(sent().slice(before)).toEqual([{ name: 'conf.extract-insights', payload: { meetingId } }]);
    // The list shows it too.
    const list = (await t.app.inject({ method: 'GET', url: '/api/conf/meetings?limit=100', headers: admin.headers })).json() as {
      items: { id: string; insightsStatus: string | null }[];
    };
    expect(list.items.find((m) => m.id === meetingId)?.insightsStatus).toBe('retrying');

    // The job's first run fails too: it throws for pg-boss's retry, the meeting still retrying.
    failAiCall();
    await expect(runRetry(meetingId, 0)).rejects.toThrow(/failed again/);
    expect((await meeting(meetingId)).insightsStatus).toBe('retrying');
    // The next run gets an answer: the insights are written and counted.
    answering();
    expect(await runRetry(meetingId, 1)).toMatchObject({ status: 'extracted', insightCount: 1 });
    expect(await meeting(meetingId)).toMatchObject({ insightCount: 1, insightsStatus: 'extracted', insightsError: null });
    expect((await insights(meetingId)).map((i) => i.question)).toEqual(['When does the pottery studio open?']);
    // A second delivery of the job changes nothing (no second set of insights, no AI call).
    const calls = ai.calls.length;
    expect(await runRetry(meetingId, 0)).toMatchObject({ status: 'skipped' });
    expect(ai.calls.length).toBe(calls);
    expect(await insights(meetingId)).toHaveLength(1);
  });

  it('the last failed retry leaves it failed with the reason; re-processing the meeting tries again', async () => {
    failAiCall();
    const { meetingId } = await upload('Pottery studio, again');
    failAiCall();
    expect(await runRetry(meetingId, 3)).toMatchObject({ status: 'failed', reason: expect.stringMatching(/500/) });
    expect(await meeting(meetingId)).toMatchObject({
      status: 'completed',
      insightsStatus: 'failed',
      insightsError: expect.stringMatching(/500/),
    });
    // The retry job no longer applies.
    expect(await runRetry(meetingId, 0)).toMatchObject({ status: 'skipped' });
    answering();
    const queued = await t.app.inject({ method: 'POST', url: `/api/conf/meetings/${meetingId}/transcript`, headers: admin.headers });
    expect(queued.statusCode).toBe(202);
    expect((await meeting(meetingId)).insightsStatus).toBeNull();
    await confProcessMeetingJob.handler(t.ctx, { meetingId }, { id: 'test', retryCount: 0 } as never);
    expect(await meeting(meetingId)).toMatchObject({
      status: 'completed',
      insightCount: 1,
      insightsStatus: 'extracted',
      insightsError: null,
    });
  });
});

describe('promote keeps to the FAQ rules', () => {
  const put = (id: string, payload: object) =>
    t.app.inject({ method: 'PUT', url: `/api/knowledge/${id}/promote`, headers: admin.headers, payload });
  const ingest = async (title: string) => {
    return t.app.inject({
      method: 'POST',
      url: '/api/knowledge/ingest',
      headers: admin.headers,
      payload: { title, content: `Notes for ${title}: the gym opens at 7am on weekdays.` },
    });
  };

  it('a blank, too short or too long question or a blank answer is 400 naming the field; a title that breaks the rules is 422', async () => {
    // A blank title used to be trimmed to an empty item title, later the question of a published FAQ.
    expect(expectProblem(await ingest('   '), 400).errors?.[0]?.path).toBe('body.title');
    const short = await ingest('Gym');
    expect(short.statusCode).toBe(201);
    const id = (short.json() as { items: { id: string }[] }).items[0]?.id as string;
    for (const [payload, path] of [
      [{ question: '     ', faqId: null }, 'body.question'],
      [{ question: 'Gym?', faqId: null }, 'body.question'],
      [{ question: `${'Why '.repeat(130)}?`, faqId: null }, 'body.question'],
      [{ question: 'When does the gym open?', answer: '   ', faqId: null }, 'body.answer'],
    ] as const) {
      expect(expectProblem(await put(id, payload), 400).errors?.[0]?.path).toBe(path);
    }
    // No question given: the item's title would be the question, and "Gym" is no FAQ question.
    const bad = expectProblem(await put(id, { faqId: null }), 422, 'FAQ_TEXT_INVALID');
    expect(bad.errors?.[0]?.path).toBe('body.question');
    // A title longer than a FAQ question (a post's or meeting's title can be): refused too, not cut to fit.
    const longId = ((await ingest('Gym hours')).json() as { items: { id: string }[] }).items[0]?.id as string;
    await t.ctx.db
      .update(documentInsights)
      .set({ title: 'Opening hours of the gym '.repeat(21) })
      .where(eq(documentInsights.id, longId));
    expectProblem(await put(longId, { faqId: null }), 422, 'FAQ_TEXT_INVALID');
    const ok = await put(id, { question: 'When does the gym open?', faqId: null });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ action: 'created', faq: { reviewStatus: 'approved' } });
    // Updating an existing FAQ (faqId) takes the same rules for a question given.
    const faqId = (ok.json() as { faq: { id: string } }).faq.id;
    const other = (await ingest('Gym hours on weekends')).json() as { items: { id: string }[] };
    const otherId = other.items[0]?.id as string;
    expect(expectProblem(await put(otherId, { faqId, question: '   ' }), 400).errors?.[0]?.path).toBe('body.question');
    const updated = await put(otherId, { faqId });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ action: 'updated', faq: { id: faqId, question: 'When does the gym open?' } });
  });
});

describe("the chat's relevance gate on a calibrated embedder", () => {
  it('moves onto its scale: an unrelated question scoring 0.62 (as the default embedder scores them) is "I don\'t know" with no provider call', async () => {
    const program = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Chat gate' } });
    const batchId = (program.json() as { id: string }).id;
    await createKnowledge(t.ctx, { batchId, title: 'Lockers', content: 'Lockers open at eight.', embedding: unitVector(300) });
    // A calibrated embedder (cosine = 0.59 + 0.41 x its parts' cosine) whose query lands at `cos` to the item.
    const at = (cos: number): Embedder => ({
      model: 'calibrated-test',
      calibration: 0.59,
      embed: async (texts) => texts.map(() => unitVector(300, cos)),
      warm: async () => ({ model: 'calibrated-test', ms: 0 }),
    });
    ai.reply = () => ({ answerable: true, answer: 'Lockers open at eight.', sourceIds: [] });
    const callsBefore = ai.calls.length;
    const unrelated = await knowledgeChat({ ...t.ctx, embedder: at(0.62) }, { q: 'what is the capital of mongolia', batchId });
    expect(unrelated).toMatchObject({ answered: false, sources: [], reason: 'nothing relevant in the knowledge base' });
    expect(ai.calls.length).toBe(callsBefore);
    // Related (0.90, a parts' cosine of 0.76): the provider is asked.
    await knowledgeChat({ ...t.ctx, embedder: at(0.9) }, { q: 'when do the lockers open', batchId });
    expect(ai.calls.length).toBe(callsBefore + 1);
  });
});

describe('promoting one document twice in a row', () => {
  it('updates the FAQ the first promote made (not yet embedded) instead of making a second one', async () => {
    const program = await t.app.inject({
      method: 'POST',
      url: '/api/batches',
      headers: admin.headers,
      payload: { name: 'Twice promoted' },
    });
    const batchId = (program.json() as { id: string }).id;
    const doc = { title: 'How do I book a study room at the library?', content: 'Study rooms are booked on the library website.', batchId };
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const ingest = await t.app.inject({ method: 'POST', url: '/api/knowledge/ingest', headers: admin.headers, payload: doc });
      expect(ingest.statusCode).toBe(201);
      ids.push((ingest.json() as { items: { id: string }[] }).items[0]?.id as string);
    }
    const first = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${ids[0]}/promote`, headers: admin.headers });
    expect(first.json()).toMatchObject({ action: 'created' });
    const faqId = (first.json() as { faq: { id: string } }).faq.id;
    const second = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${ids[1]}/promote`, headers: admin.headers });
    expect(second.json()).toMatchObject({ action: 'updated', faq: { id: faqId } });
  });
});

describe('an Ollama embedder of the wrong size', () => {
  it('makes knowledge ingest a 503 EMBEDDER_UNAVAILABLE that writes nothing (it was a 500)', async () => {
    const narrow = await startFakeOllama({ vectorFor: () => new Array<number>(512).fill(0.01) });
    const app = await createTestApp({ env: { ...GENEROUS_LIMITS, EMBEDDER: 'ollama', OLLAMA_HOST: narrow.url } });
    try {
      const boss = await app.signIn('admin');
      const title = 'Bike storage policy';
      const ingest = await app.app.inject({
        method: 'POST',
        url: '/api/knowledge/ingest',
        headers: boss.headers,
        payload: { title, content: 'Bikes go in the cage behind building B.\nThe cage code changes every term.' },
      });
      expect(expectProblem(ingest, 503, 'EMBEDDER_UNAVAILABLE').detail).toMatch(/512 dimensions/);
      const written = await app.ctx.db.select({ id: documentInsights.id }).from(documentInsights).where(eq(documentInsights.title, title));
      expect(written).toEqual([]);
    } finally {
      await app.close();
      await narrow.close();
    }
  });
});

describe("path A keeps only insights the model's prompt supports", () => {
  it('drops a line past the prompt, blank or invisible text, an insight given twice, and keeps the first 20 of more', async () => {
    // About 100 characters a line: the prompt's 50,000 characters stop short of the last lines.
    const segments = Array.from({ length: 800 }, (_, i) => ({
      start: i * 5,
      end: i * 5 + 4,
      speaker: i === 799 ? 'Late Speaker' : 'Host',
      text: `Line ${i}: the pottery studio lends aprons and tools to every member who books a slot ahead.`,
    }));
    const valid = (n: number) => ({ question: `Can members borrow tools ${n}?`, answer: 'Yes, aprons and tools.', segment: n });
    ai.reply = () => ({
      insights: [
        { question: 'What did the late speaker say?', answer: 'Something unseen.', segment: 799 },
        { question: '\u200b\u200b\u200b', answer: 'Yes.', segment: 1 },
        { question: 'Can I book a slot?', answer: '\u200b \u2060', segment: 2 },
        valid(3),
        { question: 'can members borrow TOOLS 3', answer: 'Yes, aprons and tools!', segment: 4 },
        ...Array.from({ length: 24 }, (_, n) => valid(n + 4)),
      ],
    });
    const program = (await t.ctx.db.select({ id: documentInsights.batchId }).from(documentInsights).limit(1))[0]?.id ?? null;
    const result = await extractInsights(
      t.ctx,
      { id: 'm-long', batchId: program, topic: 'Pottery' },
      {
        segments,
        text: segments
          .map((s) => s.text)
          .join('\n')
          .slice(0, 50_000),
      },
    );
    expect(ai.calls.at(-1)?.prompt).not.toContain('Line 799:');
    expect(result.outcome).toBe('extracted');
    expect(result.insights).toHaveLength(20);
    expect(result.insights.map((i) => i.question)).toEqual(Array.from({ length: 20 }, (_, n) => `Can members borrow tools ${n + 3}?`));
    expect(result.insights.some((i) => i.speaker === 'Late Speaker')).toBe(false);
  });

  it('drops a bad item alone (it failed the whole reply), and tells C++ from C# and -5 from 5', async () => {
    const segments = Array.from({ length: 6 }, (_, i) => ({
      start: i * 5,
      end: i * 5 + 4,
      speaker: 'Bob',
      text: `Line ${i} of the exam briefing.`,
    }));
    ai.reply = () => ({
      insights: [
        { question: '', answer: 'Blank question.', segment: 1 },
        { question: '  ', answer: 'Spaces.', segment: 1 },
        { question: 'Is there an empty answer?', answer: '', segment: 1 },
        { question: 'Which line is minus one?', answer: 'None.', segment: -1 },
        { question: 'Which line is one and a half?', answer: 'None.', segment: 1.5 },
        { question: `Why ${'so '.repeat(200)}long?`, answer: 'Too long a question.', segment: 1 },
        { question: 'Is the exam on C++?', answer: 'Yes.', segment: 3 },
        { question: 'Is the exam on C#?', answer: 'Yes.', segment: 3 },
        { question: 'What freezer temperature?', answer: '-5 °C', segment: 5 },
        { question: 'What freezer temperature?', answer: '5 °C', segment: 5 },
      ],
    });
    const result = await extractInsights(
      t.ctx,
      { id: 'm-bad-items', batchId: null, topic: 'Exam' },
      { segments, text: segments.map((s) => s.text).join('\n') },
    );
    expect(result.outcome).toBe('extracted');
    expect(result.insights.map((i) => `${i.question} ${i.answer}`)).toEqual([
      'Is the exam on C++? Yes.',
      'Is the exam on C#? Yes.',
      'What freezer temperature? -5 °C',
      'What freezer temperature? 5 °C',
    ]);
  });
});
