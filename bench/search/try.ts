import pg from 'pg';
import { buildHybridSql, runHybridSearch, embedText } from '@cfaq/core';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/community_faq_bench', max: 2 });
const prog = (await pool.query('select id from batches where is_default')).rows[0].id;
const f = (await pool.query('select question from faqs limit 1')).rows[0].question;
console.log('q:', f);
const t0 = performance.now();
for (let i=0;i<3;i++){const t1=performance.now(); await runHybridSearch(pool, { query: f, embedding: embedText(f), programId: prog }); console.log("ms", performance.now()-t1);}
const rows = await runHybridSearch(pool, { query: f, embedding: embedText(f), programId: prog });
console.log(performance.now() - t0, rows);
await pool.end();
