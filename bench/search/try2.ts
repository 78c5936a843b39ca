import pg from 'pg';
import { buildHybridSql, embedText, toVectorLiteral } from '@cfaq/core';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/community_faq_bench', max: 1 });
const prog = (await pool.query('select id from batches where is_default')).rows[0].id;
const f = process.argv[2] ?? (await pool.query('select question from faqs limit 1')).rows[0].question;
const c = await pool.connect();
await c.query('SET hnsw.iterative_scan = relaxed_order');
for (let i = 0; i < 2; i++) {
  const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${buildHybridSql()}`, [f, toVectorLiteral(embedText(f)), prog]);
  if (i === 1) console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
}
c.release();
await pool.end();
