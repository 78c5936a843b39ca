import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './load.js';

/**
 * Makes DATA_DIR (and its missing parents) and checks this process can write in it, or throws a
 * ConfigError naming DATA_DIR. One directory at a time, not `mkdirSync(dir, { recursive: true })`:
 * Node's recursive mkdir loops forever, with no output, where a parent exists but cannot hold a new
 * directory (`DATA_DIR=/proc/nope`: mkdir answers ENOENT under an existing /proc, and it retries).
 */
export function ensureDataDir(dataDir: string): string {
  const dir = resolve(dataDir);
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      statSync(existing);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw dataDirError(dataDir, existing, err);
      const parent = dirname(existing);
      if (parent === existing) break;
      missing.unshift(existing);
      existing = parent;
    }
  }
  if (!statSync(existing).isDirectory()) {
    throw new ConfigError('DATA_DIR', `cannot be created: ${existing} is not a directory (value: ${JSON.stringify(dataDir)})`);
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && statSync(path).isDirectory()) continue;
      throw dataDirError(dataDir, path, err);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw dataDirError(dataDir, dir, err);
  }
  return dir;
}

function dataDirError(dataDir: string, path: string, err: unknown): ConfigError {
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new ConfigError(
    'DATA_DIR',
    `cannot create or write ${path} (${code}); point it at a writable directory (value: ${JSON.stringify(dataDir)})`,
  );
}
