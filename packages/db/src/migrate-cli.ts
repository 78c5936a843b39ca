// The one check of a database URL the app makes too (packages/core/src/config/checks.ts): the file alone,
// which imports nothing but node:net, so the migrator does not load the rest of core.
import { databaseUrlProblem } from '@cfaq/core/config/checks';
import { createPool } from './client.js';
import { runMigrations } from './migrate.js';

/** Stops with one line naming DATABASE_URL, as the API and worker do for a bad setting. */
function refuse(problem: string): never {
  console.error(`Invalid setting DATABASE_URL: ${problem}`);
  process.exit(1);
}

// As every start file does (packages/core/src/runtime/main.ts): a `.env` in the working directory
// fills what the environment leaves unset.
try {
  process.loadEnvFile();
} catch {
  /* no .env file */
}
// Empty counts as unset and the value is trimmed, as loadConfig reads it.
const url = process.env.DATABASE_URL?.trim();
if (!url) {
  refuse('is not set: npm run db:migrate needs a PostgreSQL server (the embedded database migrates itself at start)');
}
const problem = databaseUrlProblem(url);
if (problem) refuse(problem);
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
