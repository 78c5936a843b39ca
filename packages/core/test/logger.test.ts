import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLoggerOptions } from '../src/runtime/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: pino(createLoggerOptions({ level: 'info' }), stream), text: () => lines.join('') };
}

describe('logger redaction', () => {
  it('never writes authorization headers, passwords, tokens or keys', () => {
    const { log, text } = capture();
    log.info(
      {
        req: { headers: { authorization: 'Bearer eyJsecret', cookie: 'sid=abc' } },
        password: 'hunter2',
        body: { refreshToken: 'rt-secret', apiKey: 'sk-live-123', password: 'p@ss' },
        user: { totpSecret: 'JBSWY3DP', confAccessToken: 'zoom-at' },
      },
      'request',
    );
    const out = text();
    for (const secret of ['eyJsecret', 'sid=abc', 'hunter2', 'rt-secret', 'sk-live-123', 'p@ss', 'JBSWY3DP', 'zoom-at']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[redacted]');
  });
});
