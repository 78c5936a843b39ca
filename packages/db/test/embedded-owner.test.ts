import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEmbeddedDatabase } from '../src/embedded.js';

describe('a process that joins another process’s embedded database', () => {
  it('learns when the owner is gone (the database went with it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfaq-owner-'));
    try {
      // The "owner": a live process whose lock names a port; it exits shortly.
      const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)'], { stdio: 'ignore' });
      writeFileSync(join(dir, 'pglite.lock'), JSON.stringify({ pid: owner.pid, port: 1 }));
      const joined = await openEmbeddedDatabase(dir);
      expect(joined.owner).toBe(false);
      let gone = false;
      void joined.ownerGone.then(() => {
        gone = true;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(gone).toBe(false);
      await new Promise((r) => owner.on('exit', r));
      await joined.ownerGone;
      expect(gone).toBe(true);
      await joined.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
