import { createServer } from 'node:net';
import { ConfigError } from '@cfaq/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { listen } from '../src/app.js';

describe('listen', () => {
  it('names HOST when the address is not one of this machine', async () => {
    const app = Fastify();
    try {
      // TEST-NET-1 (RFC 5737): never an address of this machine, so listen answers EADDRNOTAVAIL.
      const err = await listen(app, { HOST: '192.0.2.1', PORT: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).setting).toBe('HOST');
      expect((err as Error).message).toMatch(/^Invalid setting HOST: cannot listen on "192\.0\.2\.1" \(EADDRNOTAVAIL\)/);
    } finally {
      await app.close();
    }
  });

  it('names PORT when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const app = Fastify();
    try {
      const err = await listen(app, { HOST: '127.0.0.1', PORT: port }).catch((e: unknown) => e);
      expect((err as ConfigError).setting).toBe('PORT');
      expect((err as Error).message).toMatch(/EADDRINUSE/);
    } finally {
      await app.close();
      taken.close();
    }
  });
});
