import { backfillEmbeddings, ConfigError, startFailure, startRuntime } from '@cfaq/core';

try {
  process.loadEnvFile();
} catch {
  /* no .env file */
}

/** A wrong command line or a process that could not start: its message is all the operator needs (no stack). */
class OneLineError extends Error {}

/** `npm run embeddings:backfill [-- --batch 64]`: embeds every FAQ, post and knowledge row that has no embedding. */
async function main() {
  const i = process.argv.indexOf('--batch');
  const batchSize = i > 0 ? Number(process.argv[i + 1]) : 64;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
    throw new OneLineError(`--batch must be a whole number from 1 to 1000 (got ${JSON.stringify(process.argv[i + 1] ?? '')})`);
  }
  const runtime = await startRuntime({ role: 'api' }).catch((err: unknown) => {
    if (err instanceof ConfigError) throw err;
    // As the API and worker report it: an unreachable database is one line naming DATABASE_URL.
    throw new OneLineError(startFailure('embeddings:backfill', err, { databaseUrlSet: Boolean(process.env.DATABASE_URL?.trim()) }));
  });
  try {
    const result = await backfillEmbeddings(runtime.ctx, { batchSize });
    for (const r of result) console.log(`${r.table}: ${r.embedded} embedded`);
  } finally {
    await runtime.close();
  }
}

main().catch((err) => {
  console.error(err instanceof OneLineError || err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
