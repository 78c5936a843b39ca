import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from './data-dir.js';
import type { Config } from './schema.js';

export interface DevSecrets {
  JWT_SECRET: string;
  ENCRYPTION_KEY: string;
}

const generated = (): DevSecrets => ({
  JWT_SECRET: randomBytes(48).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
});

/**
 * Outside production a missing JWT_SECRET or ENCRYPTION_KEY is generated once and kept in
 * DATA_DIR/secrets.json (mode 600), so the README's one command works on a fresh machine and
 * restarts keep sessions and encrypted values readable. Production refuses to start without them.
 */
export function withDevSecrets(config: Config): Config {
  if (config.JWT_SECRET && config.ENCRYPTION_KEY) return config;
  if (config.NODE_ENV === 'production') return config;
  ensureDataDir(config.DATA_DIR);
  const stored = devSecretsFile(join(config.DATA_DIR, 'secrets.json'));
  return {
    ...config,
    JWT_SECRET: config.JWT_SECRET ?? stored.JWT_SECRET,
    ENCRYPTION_KEY: config.ENCRYPTION_KEY ?? stored.ENCRYPTION_KEY,
  };
}

/**
 * The secrets kept in `file`, made on first use. Two processes start together (`start:api` beside
 * `start:worker`): a file is never rewritten once it holds both keys, and a new one is written aside
 * and linked into place, which fails if another process got there first; then its keys are read. A
 * file rewritten in place was read empty or half-written by the other process, which then made keys of
 * its own over the real ones: encrypted values stopped decrypting and the two processes disagreed.
 */
export function devSecretsFile(file: string, generate: () => DevSecrets = generated): DevSecrets {
  for (let attempt = 0; attempt < 5; attempt++) {
    const stored = readSecrets(file);
    if (stored.JWT_SECRET && stored.ENCRYPTION_KEY) return { JWT_SECRET: stored.JWT_SECRET, ENCRYPTION_KEY: stored.ENCRYPTION_KEY };
    const fresh = generate();
    const next = { JWT_SECRET: stored.JWT_SECRET ?? fresh.JWT_SECRET, ENCRYPTION_KEY: stored.ENCRYPTION_KEY ?? fresh.ENCRYPTION_KEY };
    const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(aside, JSON.stringify(next, null, 2), { mode: 0o600, flag: 'wx' });
    try {
      // No file yet: link it into place (fails if another process did first). A file missing a key (or
      // not JSON, left by an older version's in-place write): replace it whole, in one rename.
      if (stored.exists) renameSync(aside, file);
      else linkSync(aside, file);
      return next;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      try {
        unlinkSync(aside);
      } catch {
        /* renamed into place */
      }
    }
  }
  throw new Error(`could not keep development secrets in ${file}`);
}

function readSecrets(file: string): Partial<DevSecrets> & { exists: boolean } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<DevSecrets>;
    return {
      exists: true,
      ...(typeof parsed.JWT_SECRET === 'string' && parsed.JWT_SECRET ? { JWT_SECRET: parsed.JWT_SECRET } : {}),
      ...(typeof parsed.ENCRYPTION_KEY === 'string' && parsed.ENCRYPTION_KEY ? { ENCRYPTION_KEY: parsed.ENCRYPTION_KEY } : {}),
    };
  } catch {
    return { exists: true };
  }
}
