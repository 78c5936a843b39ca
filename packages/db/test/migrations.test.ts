import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneDatabase } from '@cfaq/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool } from '../src/client.js';
import { MIGRATIONS_FOLDER, runMigrations } from '../src/migrate.js';

const TABLES = [
  'users',
  'refresh_tokens',
  'recovery_codes',
  'conf_oauth_states',
  'batches',
  'program_settings',
  'categories',
  'faqs',
  'faq_revisions',
  'faq_feedback',
  'faq_reports',
  'fresh_review_votes',
  'fresh_review_logs',
  'community_posts',
  'comments',
  'post_votes',
  'comment_votes',
  'pipeline_results',
  'post_escalation_logs',
  'conf_meetings',
  'conf_insights',
  'transcript_knowledge',
  'document_insights',
  'notifications',
  'notification_settings',
  'tea_notifications',
  'tea_notification_reads',
  'tea_withdrawals',
  'reputation_logs',
  'reputation_totals',
  'reputation_board_sizes',
  'reputation_point_counts',
  'user_counts',
  'community_daily_stats',
  'signup_daily_stats',
  'user_daily_activity',
  'user_active_days',
  'user_activity_totals',
  'answer_time_daily',
  'analytics_dirty_days',
  'badges',
  'support_requests',
  'search_logs',
  'unresolved_searches',
  'search_cache_generation',
  'rate_limit_counters',
  'search_daily_stats',
  'search_query_daily',
  'analytics_rollups',
  'ai_configs',
  'admin_logs',
  'moderation_logs',
  'ai_questions',
  'ai_usage',
  'ai_answer_votes',
  'ai_answer_outcomes',
];

/** The spec's program-scoped models: batchId present, indexed, backfilled to the default program. */
const SCOPED = [
  'community_posts',
  'conf_meetings',
  'document_insights',
  'transcript_knowledge',
  'badges',
  'reputation_logs',
  'search_logs',
  'unresolved_searches',
  'notifications',
  'tea_notifications',
  'support_requests',
  'ai_questions',
];

// An empty database per file, migrated by the code under test (not cloned from the template).
async function emptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = inject('dbServerUrl');
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const name = `${inject('dbPrefix')}_empty_${Math.random().toString(16).slice(2, 8)}`;
  await admin.query(`create database "${name}"`);
  await admin.end();
  const u = new URL(server);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

let db: { url: string; drop: () => Promise<void> };
let pool: pg.Pool;

beforeAll(async () => {
  db = await emptyDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  await runMigrations(pool);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const q = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await pool.query<T>(sql, params)).rows;

describe('migrations', () => {
  it('create every table the spec names', async () => {
    const rows = await q<{ tablename: string }>("select tablename from pg_tables where schemaname = 'public'");
    expect(rows.map((r) => r.tablename).sort()).toEqual([...TABLES].sort());
  });

  it('install pgvector and give four tables vector(768) with an HNSW cosine index', async () => {
    expect(await q("select 1 from pg_extension where extname = 'vector'")).toHaveLength(1);
    const cols = await q<{ table_name: string; type: string }>(
      `select c.relname as table_name, format_type(a.atttypid, a.atttypmod) as type
         from pg_attribute a join pg_class c on c.oid = a.attrelid
        where a.attname = 'embedding' and c.relkind = 'r' order by 1`,
    );
    expect(cols).toEqual(
      ['community_posts', 'document_insights', 'faqs', 'transcript_knowledge'].map((t) => ({ table_name: t, type: 'vector(768)' })),
    );
    const hnsw = await q<{ tablename: string; indexdef: string }>(
      "select tablename, indexdef from pg_indexes where indexdef like '%USING hnsw%'",
    );
    expect(hnsw).toHaveLength(4);
    for (const idx of hnsw) expect(idx.indexdef).toContain('vector_cosine_ops');
  });

  it('give the same four tables a generated tsvector with a GIN index', async () => {
    const generated = await q<{ table_name: string }>(
      "select table_name from information_schema.columns where column_name = 'search_vector' and is_generated = 'ALWAYS' order by 1",
    );
    expect(generated.map((r) => r.table_name)).toEqual(['community_posts', 'document_insights', 'faqs', 'transcript_knowledge']);
    const gin = await q("select 1 from pg_indexes where indexdef like '%USING gin (search_vector)%'");
    expect(gin).toHaveLength(4);
  });

  it("keep the knowledge tables' tsvector in the row (STORAGE MAIN), where the keyword side reads it for every matching row", async () => {
    const storage = await q<{ relname: string; attstorage: string }>(
      `select c.relname, a.attstorage from pg_attribute a join pg_class c on c.oid = a.attrelid
       where a.attname = 'search_vector' and c.relname in ('transcript_knowledge', 'document_insights', 'faqs') order by 1`,
    );
    expect(storage.map((r) => [r.relname, r.attstorage])).toEqual([
      ['document_insights', 'm'],
      ['faqs', 'x'],
      ['transcript_knowledge', 'm'],
    ]);
  });

  it("keep the knowledge tables' embedding in the row, where POST /search reads it for every row (no TOAST read per row)", async () => {
    for (const table of ['transcript_knowledge', 'document_insights']) {
      const [rel] = await q<{ options: string[]; toast: string }>(
        `select c.reloptions as options, c.reltoastrelid::regclass::text as toast from pg_class c where c.relname = $1`,
        [table],
      );
      expect(rel?.options).toContain('toast_tuple_target=8160');
      const vector = `[${Array.from({ length: 768 }, (_, i) => ((i % 7) - 3) / 10).join(',')}]`;
      const [row] = await q<{ id: string }>(
        `insert into ${table} (title, content, embedding) values ('inline check', repeat('a passage of some length ', 20), $1::vector) returning id`,
        [vector],
      );
      // Nothing of the row went to TOAST; the vector reads back unchanged.
      expect(await q(`select 1 from ${rel?.toast}`)).toHaveLength(0);
      const [back] = await q<{ same: boolean }>(`select embedding = $2::vector as same from ${table} where id = $1`, [row?.id, vector]);
      expect(back?.same).toBe(true);
      await q(`delete from ${table} where id = $1`, [row?.id]);
    }
  });

  it('notify cfaq_search_cache once per transaction that moves the search cache generation, at its commit only', async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => heard.push(m.channel));
    await listener.query('LISTEN cfaq_search_cache');
    const writer = await pool.connect();
    // A round trip on the listening connection delivers whatever was notified before it.
    const settle = async () => {
      await new Promise((r) => setTimeout(r, 50));
      await listener.query('select 1');
    };
    try {
      const [program] = await q<{ id: string }>('select id from batches where is_default');
      await writer.query('begin');
      for (const n of [1, 2, 3])
        await writer.query(`insert into faqs (batch_id, question, answer) values ($1, $2, 'A.')`, [program?.id, `Q${n}?`]);
      await settle();
      expect(heard).toEqual([]);
      await writer.query('commit');
      await settle();
      expect(heard).toEqual(['cfaq_search_cache']);
      await writer.query('begin');
      await writer.query(`delete from faqs where question like 'Q_?'`);
      await writer.query('rollback');
      await writer.query(`update faqs set view_count = view_count + 1`);
      await settle();
      expect(heard).toEqual(['cfaq_search_cache']);
    } finally {
      writer.release();
      await listener.end();
    }
  });

  it("create the spec's named indexes", async () => {
    const defs = (await q<{ indexdef: string }>("select indexdef from pg_indexes where schemaname = 'public'")).map((r) => r.indexdef);
    const has = (re: RegExp) =>
      expect(
        defs.some((d) => re.test(d)),
        re.source,
      ).toBe(true);
    has(/ON public\.pipeline_results USING btree \(pipeline, flagged, checked_at\)/);
    has(/ON public\.pipeline_results USING btree \(target_id, pipeline\)/);
    has(/ON public\.pipeline_results USING btree \(checked_at\)/);
    has(/UNIQUE INDEX fresh_review_votes_faq_cycle_voter_key ON public\.fresh_review_votes USING btree \(faq_id, cycle, voter_id\)/);
    has(/UNIQUE INDEX conf_meetings_conf_meeting_id_key ON public\.conf_meetings USING btree \(conf_meeting_id\)/);
    has(/UNIQUE INDEX users_email_key/);
    has(/UNIQUE INDEX batches_one_default_key .* WHERE is_default/);
  });

  it('make every program-scoped model carry an indexed batch_id', async () => {
    for (const table of [...SCOPED, 'faqs', 'categories']) {
      const col = await q('select 1 from information_schema.columns where table_name = $1 and column_name = $2', [table, 'batch_id']);
      expect(col, table).toHaveLength(1);
      const idx = await q<{ indexdef: string }>('select indexdef from pg_indexes where tablename = $1', [table]);
      expect(
        idx.some((i) => /\(batch_id/.test(i.indexdef) || /coalesce\(batch_id/.test(i.indexdef)),
        `${table} has an index leading with batch_id`,
      ).toBe(true);
    }
  });

  it('index every FAQ foreign key of the knowledge tables (proposed, converted, promoted)', async () => {
    // Each FK column referencing faqs must lead an index, so deleting a FAQ (ON DELETE SET NULL) and
    // "rows linked to FAQ X" do not scan the whole table.
    const fks = await q<{ table_name: string; column_name: string }>(
      `select c.conrelid::regclass::text as table_name, a.attname as column_name
         from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and c.confrelid = 'faqs'::regclass
          and c.conrelid::regclass::text in ('conf_insights', 'transcript_knowledge', 'document_insights')
        order by 1, 2`,
    );
    expect(fks).toHaveLength(6);
    for (const fk of fks) {
      const led = await q(
        `select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
          where i.indrelid = $1::regclass and a.attname = $2`,
        [fk.table_name, fk.column_name],
      );
      expect(led.length, `${fk.table_name}.${fk.column_name} leads an index`).toBeGreaterThan(0);
    }
  });

  it("use Postgres enums with the spec's values", async () => {
    const values = async (type: string) =>
      (await q<{ v: string }>('select unnest(enum_range(null::' + type + '))::text as v')).map((r) => r.v);
    expect(await values('faq_review_status')).toEqual(['approved', 'pending_review', 'draft', 'verified', 'update_requested']);
    expect(await values('freshness_tier')).toEqual(['evergreen', 'seasonal', 'volatile']);
    expect(await values('escalation_status')).toEqual(['none', 'escalated', 'resolved', 'dismissed']);
    expect(await values('fresh_review_verdict')).toEqual(['still_accurate', 'needs_update']);
    expect(await values('user_role')).toEqual(['user', 'moderator', 'admin']);
    expect(await values('pipeline_verdict')).toEqual(
      expect.arrayContaining(['approved', 'suggested', 'escalated', 'correct', 'drift_detected', 'contradiction', 'stale']),
    );
  });

  it('create exactly one default program', async () => {
    expect(await q('select slug from batches where is_default')).toEqual([{ slug: 'default' }]);
    await expect(pool.query("insert into batches (name, slug, is_default) values ('B', 'b', true)")).rejects.toThrow(
      /batches_one_default_key/,
    );
  });

  it('change nothing when run a second time', async () => {
    const before = await q('select id, hash from drizzle.__drizzle_migrations order by id');
    await runMigrations(pool);
    expect(await q('select id, hash from drizzle.__drizzle_migrations order by id')).toEqual(before);
    expect(await q('select count(*)::int as n from batches')).toEqual([{ n: 1 }]);
  });
});

describe('default program migration', () => {
  it('backfills existing program-scoped rows to the default program', async () => {
    // A database migrated only up to the schema, holding rows without a program, then brought up to date.
    const partial = mkdtempSync(join(tmpdir(), 'cfaq-mig-'));
    const target = await emptyDatabase();
    const p = createPool({ connectionString: target.url, max: 2 });
    try {
      cpSync(MIGRATIONS_FOLDER, partial, { recursive: true });
      const journalPath = join(partial, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
      const upTo = journal.entries.findIndex((e) => e.tag.endsWith('_schema'));
      journal.entries = journal.entries.slice(0, upTo + 1);
      writeFileSync(journalPath, JSON.stringify(journal));
      await runMigrations(p, partial);
      expect((await p.query('select count(*)::int as n from batches')).rows[0].n).toBe(0);
      const user = await p.query("insert into users (email, name, password_hash) values ('a@b.c', 'A', 'x') returning id");
      await p.query("insert into community_posts (title, body, author_id) values ('t', 'b', $1)", [user.rows[0].id]);
      await p.query("insert into search_logs (query, normalized_query, result_count) values ('q', 'q', 0)");

      await runMigrations(p);
      const def = (await p.query('select id from batches where is_default')).rows[0].id;
      expect((await p.query('select batch_id from community_posts')).rows).toEqual([{ batch_id: def }]);
      expect((await p.query('select batch_id from search_logs')).rows).toEqual([{ batch_id: def }]);
    } finally {
      await p.end();
      await target.drop();
      rmSync(partial, { recursive: true, force: true });
    }
  });
});

describe('template clone', () => {
  it('gives a test file a migrated database of its own', async () => {
    const c = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
    const p = createPool({ connectionString: c.url, max: 1 });
    try {
      expect((await p.query('select count(*)::int as n from batches where is_default')).rows[0].n).toBe(1);
    } finally {
      await p.end();
      await c.drop();
    }
  });
});
