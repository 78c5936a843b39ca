import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from './data-dir.js';
import type { Config } from './schema.js';

/**
 * Outside production a missing JWT_SECRET or ENCRYPTION_KEY is generated once and kept in
 * DATA_DIR/secrets.json (mode 600), so the README's one command works on a fresh machine and
 * restarts keep sessions and encrypted values readable. Production refuses to start without them.
 */
export function withDevSecrets(config: Config): Config {
  if (config.JWT_SECRET && config.ENCRYPTION_KEY) return config;
  if (config.NODE_ENV === 'production') return config;
  ensureDataDir(config.DATA_DIR);
  const file = join(config.DATA_DIR, 'secrets.json');
  let stored: { JWT_SECRET?: string; ENCRYPTION_KEY?: string } = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    /* first start */
  }
  const next = {
    JWT_SECRET: stored.JWT_SECRET ?? randomBytes(48).toString('base64url'),
    ENCRYPTION_KEY: stored.ENCRYPTION_KEY ?? randomBytes(32).toString('hex'),
  };
  writeFileSync(file, JSON.stringify(next, null, 2), { mode: 0o600 });
  return {
    ...config,
    JWT_SECRET: config.JWT_SECRET ?? next.JWT_SECRET,
    ENCRYPTION_KEY: config.ENCRYPTION_KEY ?? next.ENCRYPTION_KEY,
  };
}
