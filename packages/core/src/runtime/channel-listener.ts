import pg from 'pg';
import type { Logger } from './logger.js';

/** Wait before connecting again after the listening connection failed. */
export const LISTEN_RETRY_MS = 2000;

export interface ChannelListenerOptions {
  /** Connection settings: a connection string, or a pool's own options. */
  connection: pg.ClientConfig;
  channel: string;
  /** The connection's application_name (pg_stat_activity). */
  applicationName: string;
  log: Pick<Logger, 'warn'>;
  /** What the warning logged when the connection is lost says. */
  lostMessage: string;
  onNotification(payload: string | undefined): void;
  /**
   * Runs on each new connection before it LISTENs; false closes it and stops for good (the embedded
   * database, whose socket server does not carry NOTIFY between connections).
   */
  accept?(client: pg.Client): Promise<boolean>;
  /** Listening (again): whatever was committed while it was not has not been heard. */
  onListening?(): void;
  /** The listening connection is gone. */
  onLost?(): void;
  /** Whether to connect again LISTEN_RETRY_MS after a failure (always, until stopped, when not given). */
  retry?(): boolean;
}

/**
 * One dedicated connection LISTENing on one channel, for PostgreSQL's cross-process signals (new
 * notifications, the search cache's generation): connected on `start()`, connected again
 * LISTEN_RETRY_MS after it fails, never leaving an error unhandled.
 */
export class ChannelListener {
  /** The connection, once it LISTENs. */
  private client: pg.Client | null = null;
  private connecting = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly o: ChannelListenerOptions) {}

  /** The connection that LISTENs now, if any (its owner may run queries on it). */
  get listening(): pg.Client | null {
    return this.client;
  }

  /** Connects, unless it listens, is connecting, waits to retry or was stopped. */
  start(): void {
    if (this.client || this.connecting || this.timer || this.stopped) return;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    this.connecting = true;
    const client = new pg.Client({ ...this.o.connection, keepAlive: true, application_name: this.o.applicationName });
    let failed = false;
    const fail = (err?: unknown) => {
      if (failed) return;
      failed = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (this.client === client) {
        this.client = null;
        this.o.onLost?.();
      }
      if (this.stopped || this.o.retry?.() === false) return;
      if (err) this.o.log.warn({ err }, this.o.lostMessage);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.start();
      }, LISTEN_RETRY_MS);
      this.timer.unref();
    };
    // Never unhandled: a connection the server terminates emits 'error' and then 'end'.
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (msg) => {
      if (msg.channel === this.o.channel) this.o.onNotification(msg.payload);
    });
    try {
      await client.connect();
      if (this.o.accept && !(await this.o.accept(client))) {
        this.stopped = true;
        client.removeAllListeners('end');
        await client.end().catch(() => {});
        return;
      }
      await client.query(`LISTEN ${this.o.channel}`);
      if (this.stopped) {
        await client.end().catch(() => {});
        return;
      }
      this.client = client;
      this.o.onListening?.();
    } catch (err) {
      fail(err);
    } finally {
      this.connecting = false;
    }
  }
}
