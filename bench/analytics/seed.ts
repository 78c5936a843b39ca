/**
 * Set-based seed for the dashboard and leaderboard benchmarks: every table is filled by one
 * INSERT ... SELECT over generate_series, so a million rows take seconds, not a million round trips.
 */
import type pg from 'pg';

export interface SeedSizes {
  users: number;
  posts: number;
  comments: number;
  faqs: number;
  searchLogs: number;
  reputationLogs: number;
  /** Days back from today the posts, comments and FAQs spread over (search logs: 90, their retention). */
  days: number;
}

export async function seed(pool: pg.Pool, n: SeedSizes, log: (msg: string) => void): Promise<{ programs: string[] }> {
  const q = async (label: string, text: string, params: unknown[] = []) => {
    const t0 = performance.now();
    await pool.query(text, params);
    log(`  ${label}: ${Math.round(performance.now() - t0)} ms`);
  };
  const { rows } = await pool.query<{ id: string }>('select id from batches where is_default');
  const defaultId = rows[0]?.id as string;
  const more = await pool.query<{ id: string }>(
    `insert into batches (name, slug) values ('Cohort Two', 'cohort-two'), ('Cohort Three', 'cohort-three') returning id`,
  );
  const programs = [defaultId, ...more.rows.map((r) => r.id)];
  // Program i of three by a row number: 60 % default, 25 % two, 15 % three.
  const prog = (col: string) => `(case when ${col} % 20 < 12 then $1::uuid when ${col} % 20 < 17 then $2::uuid else $3::uuid end)`;

  await q(
    `${n.users} users`,
    `insert into users (email, password_hash, name, role, created_at)
     select 'bench' || g || '@example.test', 'x', 'User ' || g,
       (case when g % 1000 = 0 then 'admin' when g % 200 = 0 then 'moderator' else 'user' end)::user_role,
       now() - (random() * 730) * interval '1 day'
     from generate_series(1, $1::int) g`,
    [n.users],
  );
  await pool.query('create temp table u as select row_number() over (order by id) as i, id from users');
  await pool.query('create index on u (i)');
  const user = (expr: string) => `(select id from u where i = 1 + (${expr}) % ${n.users})`;

  await q(
    `${n.posts} posts`,
    `insert into community_posts (batch_id, author_id, title, body, status, answered_at, ai_answer_status, ai_answer_reviewed_at,
       escalation_status, created_at)
     select ${prog('g')}, ${user('g::bigint * 7919')}, 'Question ' || g, 'Body of question ' || g,
       (case when g % 10 < 6 then 'answered' when g % 10 = 6 then 'closed' else 'open' end)::post_status,
       case when g % 10 < 6 then c + (random() * 72) * interval '1 hour' end,
       (case when g % 5 = 0 then 'approved' when g % 5 = 1 then 'suggested' when g % 17 = 0 then 'rejected' end)::ai_answer_status,
       case when g % 5 = 0 and g % 3 = 0 then c + interval '5 hours' end,
       (case when g % 50 = 0 then 'escalated' else 'none' end)::escalation_status,
       c
     from (select g, now() - (random() * $4::int) * interval '1 day' as c from generate_series(1, $5::int) g) s`,
    [...programs, n.days, n.posts],
  );
  await pool.query('create temp table p as select row_number() over (order by id) as i, id, created_at from community_posts');
  await pool.query('create index on p (i)');
  await q(
    `${n.comments} comments`,
    `insert into comments (post_id, author_id, body, is_accepted, created_at)
     select p.id, ${user('g::bigint * 104729')}, 'Comment ' || g, g % 7 = 0, p.created_at + (random() * 48) * interval '1 hour'
     from generate_series(1, $1::int) g join p on p.i = 1 + (g * 31) % $2::int`,
    [n.comments, n.posts],
  );
  await q(
    `${n.faqs} faqs`,
    `insert into faqs (batch_id, question, answer, review_status, freshness_tier, review_interval_days, last_verified_date, source, created_at)
     select ${prog('g')}, 'FAQ question ' || g || '?', 'Answer ' || g,
       (case when g % 10 = 0 then 'pending_review' when g % 25 = 0 then 'update_requested' else 'approved' end)::faq_review_status,
       (case when g % 3 = 0 then 'seasonal' when g % 3 = 1 then 'volatile' else 'evergreen' end)::freshness_tier,
       case when g % 3 = 0 then 15 when g % 3 = 1 then 4 end,
       now() - (random() * 60) * interval '1 day',
       (case when g % 4 = 0 then 'community_post' else 'manual' end)::faq_source,
       now() - (random() * $4::int) * interval '1 day'
     from generate_series(1, $5::int) g`,
    [...programs, n.days, n.faqs],
  );
  // Queries: 5,000 distinct, skewed (a cube of a uniform number), so a few are very common.
  await q(
    `${n.searchLogs} search logs`,
    `insert into search_logs (query, normalized_query, user_id, batch_id, result_count, cache_hit, degraded, latency_ms, count, created_at)
     select 'q' || k, 'q' || k, null, ${prog('g')}, case when k % 9 = 0 then 0 else 1 + k % 5 end, g % 3 = 0, g % 97 = 0,
       5 + (g % 40), 1, now() - (random() * 90) * interval '1 day'
     from (select g, floor(5000 * power(random(), 3))::int as k from generate_series(1, $4::int) g) s`,
    [...programs, n.searchLogs],
  );
  await q(
    'unresolved searches',
    `insert into unresolved_searches (query, normalized_query, batch_id, count, status, last_seen_at)
     select 'u' || g, 'u' || g, ${prog('g')}, 1 + g % 50, (case when g % 4 = 0 then 'resolved' else 'open' end)::unresolved_search_status,
       now() - (random() * 90) * interval '1 day'
     from generate_series(1, 2000) g`,
    programs,
  );
  // Reputation: one log row per award, totals derived from the log (as the ledger keeps them).
  await q(
    `${n.reputationLogs} reputation logs`,
    `insert into reputation_logs (user_id, batch_id, points, reason, source_key, created_at)
     select ${user('g::bigint * 2654435761')}, ${prog('g')}, (array[5, 10, 15, -2, 2])[1 + g % 5],
       'post_upvoted', 'bench:' || g, now() - (random() * 400) * interval '1 day'
     from generate_series(1, $4::int) g`,
    [...programs, n.reputationLogs],
  );
  // The kept board sizes and per-value counts (migrations 0025, 0028) follow the totals by triggers;
  // the size trigger is per row and deferred, and a million of its updates of a few hot rows in one
  // transaction walk ever longer version chains (the insert ran for over 20 minutes). The bulk insert
  // runs with the table's triggers off and fills both tables after, as their migrations do.
  await pool.query('alter table reputation_totals disable trigger user');
  await q(
    'reputation totals',
    `insert into reputation_totals (batch_id, user_id, period, period_start, points)
     select batch_id, user_id, 'all', date '1970-01-01', sum(points) from reputation_logs group by 1, 2
     union all
     select batch_id, user_id, 'month', date_trunc('month', created_at at time zone 'UTC')::date, sum(points)
       from reputation_logs group by 1, 2, 4
     union all
     select batch_id, user_id, 'week', date_trunc('week', created_at at time zone 'UTC')::date, sum(points)
       from reputation_logs group by 1, 2, 4`,
  );
  await pool.query('alter table reputation_totals enable trigger user');
  await q(
    'leaderboard sizes and point counts',
    `with b as (delete from reputation_board_sizes returning 1), c as (delete from reputation_point_counts returning 1),
       sizes as (insert into reputation_board_sizes (batch_id, period, period_start, users)
         select batch_id, period, period_start, count(*) from reputation_totals where points > 0 group by 1, 2, 3 returning 1)
     insert into reputation_point_counts (batch_id, period, period_start, points, users)
     select batch_id, period, period_start, points, count(*) from reputation_totals where points > 0 group by 1, 2, 3, 4`,
  );
  await q('vacuum analyze', 'vacuum analyze');
  return { programs };
}
