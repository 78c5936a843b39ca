import { createPool } from './client.js';
import { runMigrations } from './migrate.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set: npm run db:migrate needs a PostgreSQL server (the embedded database migrates itself at start)');
  process.exit(1);
}
const pool = createPool({ connectionString: url, max: 2, applicationName: 'community-faq-migrate' });
try {
  await runMigrations(pool);
  console.log('migrations applied');
} catch (err) {
  console.error('migration failed:', err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await pool.end();
}
