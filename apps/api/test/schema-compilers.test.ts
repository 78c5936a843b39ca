import { Type as T } from '@sinclair/typebox';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { memoizedCompilers } from '../src/lib/schema-compilers.js';

const body = () => T.Object({ name: T.String({ minLength: 2 }) }, { additionalProperties: false });

describe('memoized schema compilers', () => {
  it('share one compiled function between equal schemas and keep different ones apart', async () => {
    const app = Fastify({ schemaController: { compilersFactory: memoizedCompilers } });
    const reply = T.Object({ ok: T.Boolean() });
    app.post('/a', { schema: { body: body(), response: { 200: reply } } }, async () => ({ ok: true, secret: 'x' }));
    app.post('/b', { schema: { body: body(), response: { 200: reply } } }, async () => ({ ok: false, secret: 'y' }));
    app.post('/c', { schema: { body: T.Object({ age: T.Integer() }), response: { 200: T.Object({ secret: T.String() }) } } }, async () => ({
      ok: true,
      secret: 'z',
    }));
    await app.ready();
    const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object });

    expect((await post('/a', { name: 'ab' })).json()).toEqual({ ok: true });
    expect((await post('/b', { name: 'ab' })).json()).toEqual({ ok: false });
    expect((await post('/b', { name: 'a' })).statusCode).toBe(400);
    // /c has its own validator and serializer: /a's would refuse its body and drop its field.
    const c = await post('/c', { age: 3 });
    expect(c.statusCode).toBe(200);
    expect(c.json()).toEqual({ secret: 'z' });
    expect((await post('/c', { name: 'ab' })).statusCode).toBe(400);

    await app.close();
  });

  it('compile each distinct schema once, across the apps of one process', () => {
    type Compile = (route: { schema: unknown; method: string; url: string; httpPart?: string; httpStatus?: string }) => unknown;
    const factory = memoizedCompilers.buildValidator as unknown as (external: unknown, options: unknown) => Compile;
    const options = { customOptions: { allErrors: true } };
    const first = factory({}, options);
    const second = factory({}, options);
    const a = first({ schema: body(), method: 'POST', url: '/a', httpPart: 'body' });
    expect(first({ schema: body(), method: 'PUT', url: '/b', httpPart: 'body' })).toBe(a);
    expect(second({ schema: body(), method: 'POST', url: '/c', httpPart: 'body' })).toBe(a);
    expect(first({ schema: T.Object({ other: T.String() }), method: 'POST', url: '/a', httpPart: 'body' })).not.toBe(a);
    // Other shared schemas or options compile anew.
    expect(factory({}, { customOptions: { allErrors: false } })({ schema: body(), method: 'POST', url: '/a' })).not.toBe(a);
    const serializer = memoizedCompilers.buildSerializer as unknown as (external: unknown, options: unknown) => Compile;
    const s1 = serializer({}, {})({ schema: body(), method: 'GET', url: '/a', httpStatus: '200' });
    expect(serializer({}, {})({ schema: body(), method: 'GET', url: '/z', httpStatus: '201' })).toBe(s1);
  });
});
