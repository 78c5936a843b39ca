import { backfillEmbeddings, ConfigError, startRuntime } from '@cfaq/core';

try {
  process.loadEnvFile();
} catch {
  /* no .env file */
}

/** `npm run embeddings:backfill [-- --batch 64]`: embeds every FAQ, post and knowledge row that has no embedding. */
async function main() {
  const i = process.argv.indexOf('--batch');
  const batchSize = i > 0 ? Number(process.argv[i + 1]) : 64;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) throw new Error('--batch must be 1..1000');
  const runtime = await startRuntime({ role: 'api' });
  try {
    const result = await backfillEmbeddings(runtime.ctx, { batchSize });
    for (const r of result) console.log(`${r.table}: ${r.embedded} embedded`);
  } finally {
    await runtime.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
