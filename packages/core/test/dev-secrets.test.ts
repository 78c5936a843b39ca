import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { devSecretsFile, withDevSecrets } from '../src/config/dev-secrets.js';
import { loadConfig } from '../src/config/load.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => {
  dir = mkdtempSync(join(tmpdir(), 'cfaq-secrets-'));
  return join(dir, 'secrets.json');
};
const keys = (tag: string) => ({ JWT_SECRET: `jwt-${tag}`.padEnd(40, 'x'), ENCRYPTION_KEY: `${tag}`.padEnd(64, '0') });

describe('development secrets in DATA_DIR/secrets.json', () => {
  it('are made once (mode 600) and kept: a later start reads them and leaves the file alone', () => {
    const file = fresh();
    const first = devSecretsFile(file, () => keys('a'));
    expect(first).toEqual(keys('a'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = statSync(file);
    expect(devSecretsFile(file, () => keys('b'))).toEqual(keys('a'));
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('a process that finds the file made by another meanwhile uses its keys, never its own over them', () => {
    const file = fresh();
    // Another process writes the file between this one finding none and putting its own in place.
    const mine = devSecretsFile(file, () => {
      writeFileSync(file, JSON.stringify(keys('theirs')), { mode: 0o600 });
      return keys('mine');
    });
    expect(mine).toEqual(keys('theirs'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(keys('theirs'));
  });

  it('completes a file missing a key (an older version wrote it) and keeps the key it has', () => {
    const file = fresh();
    writeFileSync(file, JSON.stringify({ JWT_SECRET: keys('old').JWT_SECRET }), { mode: 0o600 });
    expect(devSecretsFile(file, () => keys('new'))).toEqual({
      JWT_SECRET: keys('old').JWT_SECRET,
      ENCRYPTION_KEY: keys('new').ENCRYPTION_KEY,
    });
    const config = withDevSecrets(loadConfig({ DATA_DIR: dir, NODE_ENV: 'development' }));
    expect(config.JWT_SECRET).toBe(keys('old').JWT_SECRET);
    expect(config.ENCRYPTION_KEY).toBe(keys('new').ENCRYPTION_KEY);
  });
});
