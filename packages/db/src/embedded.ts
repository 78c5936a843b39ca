import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { ExclusiveSessionQueue } from './embedded-session.js';

export interface EmbeddedDatabase {
  /** postgres:// URL of the socket server, usable by `pg` and pg-boss like any server. */
  url: string;
  /** True when this process opened the data folder; false when it joined another process's server. */
  owner: boolean;
  /**
   * A joining process's database lives in another process: this settles when that process is gone
   * (it stopped or died), after which every query fails. Never settles for the owner.
   */
  ownerGone: Promise<void>;
  close(): Promise<void>;
}

/** How often a joining process checks that the owner of the data folder still runs. */
const OWNER_CHECK_MS = 1000;

/** A process that joined through the owner's port, watching that the owner stays. */
function joined(info: LockInfo): EmbeddedDatabase {
  let timer: NodeJS.Timeout | undefined;
  const ownerGone = new Promise<void>((settle) => {
    timer = setInterval(() => {
      if (isAlive(info.pid)) return;
      clearInterval(timer);
      settle();
    }, OWNER_CHECK_MS);
    timer.unref();
  });
  return {
    url: urlFor(info.port),
    owner: false,
    ownerGone,
    close: async () => clearInterval(timer),
  };
}

/** Refusals in a row (200 ms apart, 5 s) after which a lock whose pid lives is another process's pid. */
const STALE_AFTER_REFUSALS = 25;

/** Whether something accepts connections on the loopback port (the owner's socket server). */
function listening(port: number): Promise<boolean> {
  return new Promise((settle) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      settle(ok);
    };
    socket.setTimeout(1000, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

interface LockInfo {
  pid: number;
  port: number;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The embedded default: PostgreSQL (PGlite, with pgvector) in this process, data under
 * `<dataDir>/pglite`, served on a loopback port so `pg`, drizzle and pg-boss use it unchanged.
 * Two processes opening one PGlite folder corrupt it, so the first process takes a lock file that
 * records its port; a second process (say `npm run start:worker` beside `npm run start:api`) joins
 * through that port instead of opening the folder. A lock left by a dead process is taken over.
 */
export async function openEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, 'pglite.lock');

  // How many times in a row the lock named a live process whose port refused: its owner stopping (it
  // removes the lock within a second or two), or a dead owner whose pid another process now has.
  let refused = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let info: LockInfo | null = null;
      try {
        info = JSON.parse(readFileSync(lockPath, 'utf8')) as LockInfo;
      } catch {
        /* the owner is still writing it */
      }
      const stale = info !== null && info.port > 0 && refused >= STALE_AFTER_REFUSALS;
      if (info && info.pid !== process.pid && isAlive(info.pid) && !stale) {
        if (info.port > 0) {
          if (await listening(info.port)) return joined(info);
          refused++;
        }
      } else if (info) {
        refused = 0;
        rmSync(lockPath, { force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      return await startOwner(dir, lockPath, fd);
    } catch (err) {
      closeSync(fd);
      rmSync(lockPath, { force: true });
      throw err;
    }
  }
  throw new Error(`could not open the embedded database in ${dir}: ${lockPath} is held by another process`);
}

async function startOwner(dir: string, lockPath: string, fd: number): Promise<EmbeddedDatabase> {
  writeSync(fd, JSON.stringify({ pid: process.pid, port: 0 }));
  const db = await PGlite.create({ dataDir: join(dir, 'pglite'), extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  // The server's own queue interleaves connections message by message; ours gives the session to
  // one connection per exchange and per transaction (see ExclusiveSessionQueue). The field is
  // private in the types, public at runtime; the package version is pinned and the embedded
  // concurrency test (apps/api/test/embedded-concurrency.test.ts) fails if this stops taking.
  (server as unknown as { queryQueue: ExclusiveSessionQueue }).queryQueue = new ExclusiveSessionQueue(db);
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  closeSync(fd);
  const info: LockInfo = { pid: process.pid, port };
  const tmp = openSync(lockPath, 'w');
  writeSync(tmp, JSON.stringify(info));
  closeSync(tmp);
  let closed = false;
  return {
    url: urlFor(port),
    owner: true,
    ownerGone: new Promise<void>(() => {}),
    async close() {
      if (closed) return;
      closed = true;
      await server.stop();
      await db.close();
      rmSync(lockPath, { force: true });
    },
  };
}

const urlFor = (port: number) => `postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
