import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEmbeddedDatabase } from '../src/embedded.js';

/** A live process listening on a loopback port (printed), for `ms`, standing in for an owner's socket server. */
async function listener(ms: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s=require('net').createServer(()=>{}).listen(0,'127.0.0.1',()=>console.log(s.address().port));setTimeout(()=>process.exit(0),${ms})`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const port = await new Promise<number>((settle) => child.stdout?.once('data', (d: Buffer) => settle(Number(String(d).trim()))));
  return { child, port };
}

describe('a process that joins another process’s embedded database', () => {
  it('learns when the owner is gone (the database went with it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfaq-owner-'));
    try {
      // The "owner": a live process listening on the port its lock names; it exits shortly.
      const owner = await listener(1500);
      writeFileSync(join(dir, 'pglite.lock'), JSON.stringify({ pid: owner.child.pid, port: owner.port }));
      const joined = await openEmbeddedDatabase(dir);
      expect(joined.owner).toBe(false);
      let gone = false;
      void joined.ownerGone.then(() => {
        gone = true;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(gone).toBe(false);
      await new Promise((r) => owner.child.on('exit', r));
      await joined.ownerGone;
      expect(gone).toBe(true);
      await joined.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes over a lock whose pid lives but serves nothing (a dead owner’s pid reused): it did not start at all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfaq-owner-'));
    // Any live process not ours: the lock's pid after a reboot; nothing listens on its port.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const gone = await listener(0);
    await new Promise((r) => gone.child.on('exit', r));
    try {
      writeFileSync(join(dir, 'pglite.lock'), JSON.stringify({ pid: other.pid, port: gone.port }));
      const db = await openEmbeddedDatabase(dir);
      try {
        expect(db.owner).toBe(true);
        expect(JSON.parse(readFileSync(join(dir, 'pglite.lock'), 'utf8')).pid).toBe(process.pid);
      } finally {
        await db.close();
      }
    } finally {
      other.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
