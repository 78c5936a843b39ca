import { fixedClock } from '@cfaq/core';
import { batches, categories, faqs } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp, VALID_PROGRAM_SETTINGS } from './helpers.js';

let t: TestApp;
let admin: { headers: { authorization: string } };
let user: { headers: { authorization: string } };
let moderator: { headers: { authorization: string } };
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signIn('admin');
  user = await t.signIn('user');
  moderator = await t.signIn('moderator');
});
afterAll(async () => {
  await t.close();
});

async function create(name: string, extra: Record<string, unknown> = {}) {
  const res = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name, ...extra } });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; slug: string; isDefault: boolean; archived: boolean; createdAt: string };
}

async function defaultProgram() {
  const [row] = await t.ctx.db.select().from(batches).where(eq(batches.isDefault, true));
  return row as typeof batches.$inferSelect;
}

describe('programs', () => {
  it('creates a program with a slug from its name; collisions get -2, -3', async () => {
    const a = await create('Spring Cohort 2026!', { description: 'x', startDate: '2026-03-01', endDate: '2026-06-01' });
    expect(a).toMatchObject({ slug: 'spring-cohort-2026', isDefault: false, archived: false, startDate: '2026-03-01' });
    const b = await create('Spring cohort 2026');
    const c = await create('spring   COHORT 2026');
    expect([b.slug, c.slug]).toEqual(['spring-cohort-2026-2', 'spring-cohort-2026-3']);
  });

  it('a deleted program frees its slug', async () => {
    const a = await create('Reusable');
    const del = await t.app.inject({ method: 'DELETE', url: `/api/batches/${a.id}`, headers: admin.headers });
    expect(del.statusCode).toBe(204);
    const b = await create('Reusable');
    expect(b.slug).toBe('reusable');
  });

  it('validates the body, requires admin', async () => {
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: '' } }), 400);
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'x', extra: 1 } }),
      400,
    );
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'x', startDate: 'not-a-date' } }),
      400,
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/api/batches',
        headers: admin.headers,
        payload: { name: 'x', startDate: '2026-05-01', endDate: '2026-01-01' },
      }),
      422,
      'PROGRAM_DATES_INVALID',
    );
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/batches', payload: { name: 'x' } }), 401);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/batches', headers: moderator.headers, payload: { name: 'x' } }), 403);
  });

  it('edits a program; a new name gives a new slug', async () => {
    const a = await create('Old Name');
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/batches/${a.id}`,
      headers: admin.headers,
      payload: { name: 'New Name', description: 'd' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'New Name', slug: 'new-name', description: 'd' });
    expectProblem(await t.app.inject({ method: 'PATCH', url: `/api/batches/${a.id}`, headers: admin.headers, payload: {} }), 400);
    expectProblem(await t.app.inject({ method: 'PATCH', url: `/api/batches/${a.id}`, headers: user.headers, payload: { name: 'y' } }), 403);
    expectProblem(
      await t.app.inject({ method: 'PATCH', url: `/api/batches/${MISSING}`, headers: admin.headers, payload: { name: 'y' } }),
      404,
    );
  });

  it('sets the default: exactly one default afterwards', async () => {
    const before = await defaultProgram();
    const a = await create('Next Default');
    const res = await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/default`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: a.id, isDefault: true });
    const defaults = await t.ctx.db.select().from(batches).where(eq(batches.isDefault, true));
    expect(defaults.map((d) => d.id)).toEqual([a.id]);
    // the old default can now be archived; put it back as default first
    const back = await t.app.inject({ method: 'POST', url: `/api/batches/${before.id}/default`, headers: admin.headers });
    expect(back.json()).toMatchObject({ isDefault: true });
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/default`, headers: user.headers }), 403);
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/batches/${MISSING}/default`, headers: admin.headers }), 404);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/batches/not-a-uuid/default', headers: admin.headers }), 400);
  });

  it('concurrent set-default calls leave exactly one default', async () => {
    const ps = await Promise.all([create('Race A'), create('Race B'), create('Race C')]);
    const before = await defaultProgram();
    const results = await Promise.all(
      ps.map((p) => t.app.inject({ method: 'POST', url: `/api/batches/${p.id}/default`, headers: admin.headers })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    const defaults = await t.ctx.db.select().from(batches).where(eq(batches.isDefault, true));
    expect(defaults).toHaveLength(1);
    await t.app.inject({ method: 'POST', url: `/api/batches/${before.id}/default`, headers: admin.headers });
  });

  it('the default program cannot be archived or deleted (422)', async () => {
    const def = await defaultProgram();
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/batches/${def.id}/archive`, headers: admin.headers }),
      422,
      'PROGRAM_IS_DEFAULT',
    );
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/api/batches/${def.id}`, headers: admin.headers }),
      422,
      'PROGRAM_IS_DEFAULT',
    );
  });

  it('archive hides a program from public reads and keeps its data; admins see it with includeArchived', async () => {
    const a = await create('Archived One');
    await t.ctx.db.insert(faqs).values({ batchId: a.id, question: 'Kept question?', answer: 'kept' });
    const res = await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/archive`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ archived: true });
    // Archiving again changes nothing: archivedAt stays the first time.
    await new Promise((r) => setTimeout(r, 5));
    const again = await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/archive`, headers: admin.headers });
    expect(again.json().archivedAt).toBe(res.json().archivedAt);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/default`, headers: admin.headers }),
      422,
      'PROGRAM_ARCHIVED',
    );

    const pub = await t.app.inject({ method: 'GET', url: '/api/batches?limit=100' });
    expect((pub.json() as { items: { id: string }[] }).items.map((p) => p.id)).not.toContain(a.id);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/batches/by-slug/archived-one' }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq?batchId=${a.id}` }), 404, 'PROGRAM_NOT_FOUND');
    // a user asking for archived programs does not get them
    const asUser = await t.app.inject({ method: 'GET', url: '/api/batches?limit=100&includeArchived=true', headers: user.headers });
    expect((asUser.json() as { items: { id: string }[] }).items.map((p) => p.id)).not.toContain(a.id);

    const asAdmin = await t.app.inject({ method: 'GET', url: '/api/batches?limit=100&includeArchived=true', headers: admin.headers });
    expect((asAdmin.json() as { items: { id: string }[] }).items.map((p) => p.id)).toContain(a.id);
    const bySlug = await t.app.inject({
      method: 'GET',
      url: '/api/batches/by-slug/archived-one?includeArchived=true',
      headers: admin.headers,
    });
    expect(bySlug.statusCode).toBe(200);
    const staffFaqs = await t.app.inject({ method: 'GET', url: `/api/faq?batchId=${a.id}`, headers: admin.headers });
    expect(staffFaqs.json()).toMatchObject({ total: 1 });

    const un = await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/unarchive`, headers: admin.headers });
    expect(un.json()).toMatchObject({ archived: false });
    expect((await t.app.inject({ method: 'GET', url: '/api/batches/by-slug/archived-one' })).statusCode).toBe(200);
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/batches/${a.id}/archive`, headers: user.headers }), 403);
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/batches/${MISSING}/archive`, headers: admin.headers }), 404);
  });

  it('delete is soft: the row stays with deletedAt, public reads and writes no longer find it', async () => {
    const a = await create('To Delete');
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/batches/${a.id}`, headers: user.headers }), 403);
    const res = await t.app.inject({ method: 'DELETE', url: `/api/batches/${a.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(204);
    const [row] = await t.ctx.db.select().from(batches).where(eq(batches.id, a.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/batches/${a.id}`, headers: admin.headers }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/batches/by-slug/to-delete' }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/batches/${a.id}/settings` }), 404);
  });

  it('lists programs with the default first and pagination', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/batches?limit=2' });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { items: { isDefault: boolean }[]; total: number; limit: number };
    expect(body.items[0]?.isDefault).toBe(true);
    expect(body.limit).toBe(2);
    expect(body.total).toBeGreaterThan(2);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/batches?limit=1000' }), 400);
  });

  it('GET /batches/by-slug/:slug finds a live program', async () => {
    const a = await create('Slug Finder');
    const res = await t.app.inject({ method: 'GET', url: '/api/batches/by-slug/slug-finder' });
    expect(res.json()).toMatchObject({ id: a.id, name: 'Slug Finder' });
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/batches/by-slug/nope' }), 404);
    // "Program by slugified name": the name itself, or the slug in other case, finds it too.
    for (const asked of ['Slug-Finder', encodeURIComponent('Slug Finder'), encodeURIComponent('Slug Finder!')]) {
      const byName = await t.app.inject({ method: 'GET', url: `/api/batches/by-slug/${asked}` });
      expect(byName.statusCode, asked).toBe(200);
      expect(byName.json()).toMatchObject({ id: a.id });
    }
    // A name without Latin letters or digits gets the slug `program` (then -2, ...): its own name finds
    // it, and a parameter that names nothing (`!!!`) finds nothing, not whichever program is `program`.
    const emoji = await create('😀😀😀');
    const japanese = await create('日本語プログラム');
    expect(emoji.slug).toMatch(/^program(-\d+)?$/);
    const byJapanese = await t.app.inject({ method: 'GET', url: `/api/batches/by-slug/${encodeURIComponent('日本語プログラム')}` });
    expect(byJapanese.json()).toMatchObject({ id: japanese.id });
    for (const asked of ['!!!', '%20', '---', encodeURIComponent('☃')]) {
      expectProblem(await t.app.inject({ method: 'GET', url: `/api/batches/by-slug/${asked}` }), 404);
    }
  });
});

describe('program settings', () => {
  const valid = { ...VALID_PROGRAM_SETTINGS, hero: { ...VALID_PROGRAM_SETTINGS.hero, ctaText: 'Go', ctaLink: '/go' } };

  it('a program without settings returns the defaults (cream, sage, serif)', async () => {
    const a = await create('Defaults Program');
    const res = await t.app.inject({ method: 'GET', url: `/api/batches/${a.id}/settings` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      batchId: a.id,
      isDefault: true,
      theme: { primaryColor: '#7C9A82', background: 'cream', fontFamily: 'serif' },
      sections: { sectionOrder: ['stats', 'faqs', 'community', 'zoom', 'kb'] },
      // The defaults' dates are the program's creation (the spec types both as dates).
      createdAt: a.createdAt,
      updatedAt: a.createdAt,
    });
  });

  it('put stores and get returns the settings', async () => {
    const a = await create('Styled Program');
    const put = await t.app.inject({ method: 'PUT', url: `/api/batches/${a.id}/settings`, headers: admin.headers, payload: valid });
    expect(put.statusCode).toBe(200);
    const got = await t.app.inject({ method: 'GET', url: `/api/batches/${a.id}/settings` });
    expect(got.json()).toMatchObject({ ...valid, isDefault: false, batchId: a.id });
    const again = await t.app.inject({
      method: 'PUT',
      url: `/api/batches/${a.id}/settings`,
      headers: admin.headers,
      payload: { ...valid, theme: { ...valid.theme, background: 'ink' } },
    });
    expect(again.json()).toMatchObject({ theme: { background: 'ink' } });
  });

  it('the first save dates the document by the service clock alone (created never after updated)', async () => {
    const a = await create('Dated Program');
    const real = t.ctx.clock;
    t.ctx.clock = fixedClock('2026-01-02T03:04:05.000Z');
    try {
      const put = await t.app.inject({ method: 'PUT', url: `/api/batches/${a.id}/settings`, headers: admin.headers, payload: valid });
      expect(put.json()).toMatchObject({ createdAt: '2026-01-02T03:04:05.000Z', updatedAt: '2026-01-02T03:04:05.000Z' });
    } finally {
      t.ctx.clock = real;
    }
  });

  it('rejects bad colours, enums, and an order that is not a permutation', async () => {
    const a = await create('Strict Program');
    const put = (payload: unknown) =>
      t.app.inject({ method: 'PUT', url: `/api/batches/${a.id}/settings`, headers: admin.headers, payload: payload as object });
    expectProblem(await put({ ...valid, theme: { ...valid.theme, primaryColor: 'green' } }), 400);
    expectProblem(await put({ ...valid, theme: { ...valid.theme, background: 'neon' } }), 400);
    expectProblem(await put({ ...valid, theme: { ...valid.theme, fontFamily: 'mono' } }), 400);
    expectProblem(
      await put({ ...valid, sections: { ...valid.sections, sectionOrder: ['faqs', 'faqs', 'community', 'stats', 'zoom'] } }),
      400,
    );
    expectProblem(await put({ ...valid, sections: { ...valid.sections, sectionOrder: ['faqs', 'kb', 'community', 'stats'] } }), 400);
    expectProblem(
      await put({ ...valid, sections: { ...valid.sections, sectionOrder: ['faqs', 'kb', 'community', 'stats', 'blog'] } }),
      400,
    );
    expectProblem(await put({ ...valid, branding: undefined }), 400);
    // Links the page renders: never a script or data URL, nor a URL without a host.
    for (const [field, bad] of [
      ['ctaLink', 'javascript:alert(1)'],
      ['imageUrl', 'data:image/png;base64,AAAA'],
      ['imageUrl', 'https://'],
      ['ctaLink', '//evil.example.com'],
      ['ctaLink', '/\\evil.example.com/x'],
      ['imageUrl', '/\t/evil.example.com/x.png'],
      ['ctaLink', 'https://:443/'],
    ] as const) {
      const res = expectProblem(await put({ ...valid, hero: { ...valid.hero, [field]: bad } }), 400);
      expect(res.errors?.[0]?.path).toBe(`body.hero.${field}`);
    }
    for (const [field, good] of [
      ['ctaLink', 'HTTPS://apply.example.com/now'],
      ['ctaLink', '#faq'],
      ['ctaLink', 'mailto:team@example.com'],
      ['imageUrl', '/images/hero.png'],
    ] as const) {
      expect((await put({ ...valid, hero: { ...valid.hero, [field]: good } })).statusCode).toBe(200);
    }
  });

  it('put needs admin; unknown program is 404', async () => {
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/batches/${MISSING}/settings`, headers: moderator.headers, payload: valid }),
      403,
    );
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/batches/${MISSING}/settings`, headers: admin.headers, payload: valid }),
      404,
    );
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/batches/${MISSING}/settings` }), 404);
  });
});

describe('categories', () => {
  it('seeds the default list for a program without categories, per program', async () => {
    const a = await create('Category Program');
    const res = await t.app.inject({ method: 'GET', url: `/api/faq/categories?batchId=${a.id}` });
    expect(res.statusCode).toBe(200);
    const list = res.json() as { slug: string; batchId: string }[];
    expect(list.map((c) => c.slug)).toEqual(['general', 'getting-started', 'program', 'account', 'technical', 'community']);
    expect(list.every((c) => c.batchId === a.id)).toBe(true);
    const rows = await t.ctx.db.select().from(categories).where(eq(categories.batchId, a.id));
    expect(rows).toHaveLength(6);
    // a program with its own categories returns those
    const b = await create('Own Categories');
    await t.ctx.db.insert(categories).values({ batchId: b.id, name: 'Only', slug: 'only' });
    const own = await t.app.inject({ method: 'GET', url: `/api/faq/categories?batchId=${b.id}` });
    expect((own.json() as { slug: string }[]).map((c) => c.slug)).toEqual(['only']);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/faq/categories?batchId=bad' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/categories?batchId=${MISSING}` }), 404);
  });
});

describe('concurrent program writes', () => {
  it('default switches racing edits and archives of the same programs never answer 5xx (no deadlock)', async () => {
    const make = async (name: string) =>
      ((await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name } })).json() as { id: string })
        .id;
    const [a, b] = [await make('Race A'), await make('Race B')];
    const calls = [];
    for (let i = 0; i < 12; i += 1) {
      for (const id of [a, b]) {
        calls.push(t.app.inject({ method: 'POST', url: `/api/batches/${id}/default`, headers: admin.headers }));
        calls.push(t.app.inject({ method: 'PATCH', url: `/api/batches/${id}`, headers: admin.headers, payload: { description: `d${i}` } }));
        calls.push(t.app.inject({ method: 'POST', url: `/api/batches/${id}/archive`, headers: admin.headers }));
        calls.push(t.app.inject({ method: 'POST', url: `/api/batches/${id}/unarchive`, headers: admin.headers }));
      }
    }
    const statuses = (await Promise.all(calls)).map((r) => r.statusCode);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const defaults = await t.ctx.db.select().from(batches).where(eq(batches.isDefault, true));
    expect(defaults).toHaveLength(1);
  });
});

describe('program writes that race each other', () => {
  it('two edits at once, one moving the start past the new end, leave no program ending before it starts', async () => {
    for (let round = 0; round < 4; round += 1) {
      const p = await create(`Dates ${round}`, { startDate: '2026-01-01', endDate: '2026-12-31' });
      const [start, end] = await Promise.all([
        t.app.inject({ method: 'PATCH', url: `/api/batches/${p.id}`, headers: admin.headers, payload: { startDate: '2026-06-01' } }),
        t.app.inject({ method: 'PATCH', url: `/api/batches/${p.id}`, headers: admin.headers, payload: { endDate: '2026-03-01' } }),
      ]);
      expect([start.statusCode, end.statusCode].sort()).toEqual([200, 422]);
      const [row] = await t.ctx.db.select().from(batches).where(eq(batches.id, p.id));
      expect((row?.startDate ?? '') <= (row?.endDate ?? '')).toBe(true);
    }
  });

  it('a delete or an unarchive of a program deleted meanwhile is 404, not "the default"', async () => {
    for (let round = 0; round < 3; round += 1) {
      const p = await create(`Gone ${round}`);
      const both = await Promise.all([
        t.app.inject({ method: 'DELETE', url: `/api/batches/${p.id}`, headers: admin.headers }),
        t.app.inject({ method: 'DELETE', url: `/api/batches/${p.id}`, headers: admin.headers }),
        t.app.inject({ method: 'POST', url: `/api/batches/${p.id}/unarchive`, headers: admin.headers }),
        t.app.inject({ method: 'POST', url: `/api/batches/${p.id}/archive`, headers: admin.headers }),
      ]);
      for (const res of both) if (res.statusCode >= 400) expectProblem(res, 404, 'PROGRAM_NOT_FOUND');
      expect(both.filter((r) => r.statusCode === 204)).toHaveLength(1);
    }
  });

  it('parallel creates and renames to one name all succeed with -2, -3, ...', async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Same Name' } }),
      ),
    );
    expect(created.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    const others = await Promise.all(Array.from({ length: 6 }, (_, i) => create(`Renamed later ${i}`)));
    const renamed = await Promise.all(
      others.map((p) =>
        t.app.inject({ method: 'PATCH', url: `/api/batches/${p.id}`, headers: admin.headers, payload: { name: 'Same Name' } }),
      ),
    );
    expect(renamed.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
    const slugs = [...created, ...renamed].map((r) => (r.json() as { slug: string }).slug).sort();
    expect(new Set(slugs).size).toBe(14);
    expect(slugs).toContain('same-name');
    expect(slugs).toContain('same-name-14');
  });

  it('slugs spell Latin letters that have no accent to strip', async () => {
    expect((await create('Straße Cohort')).slug).toBe('strasse-cohort');
    expect((await create('Søren Øresund')).slug).toBe('soren-oresund');
    expect((await create('Łódź Group')).slug).toBe('lodz-group');
    expect((await create('Ærø Þing')).slug).toBe('aero-thing');
    expect((await create('Gənclər Proqramı')).slug).toBe('gencler-proqrami');
    expect((await create('Ɖɔkɔtɛ Cohort')).slug).toBe('dokote-cohort');
  });
});
