import { afterEach, describe, expect, it } from 'vitest';
import { encoderPasses, encodeSentences, sentenceEncoder, tensorflow } from '../src/embeddings/sentence-encoder.js';
import { useSentenceKernels } from '../src/embeddings/sentence-kernels.js';

/** The tfjs-core functions these tests call (the module's own typing names only what it uses). */
interface Tf {
  tensor(values: number[], shape: number[], dtype?: string): Tensor;
  split(x: Tensor, sizes: number[], axis: number): Tensor[];
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  backend(): { dataIdMap: { numDataIds(): number } };
}
interface Tensor {
  dataSync(): Float32Array | Int32Array;
  shape: number[];
  dispose(): void;
}

async function tf(): Promise<Tf & Parameters<typeof useSentenceKernels>[0]> {
  await sentenceEncoder(); // loads the WASM backend and installs the kernels
  return (await tensorflow()) as Tf & Parameters<typeof useSentenceKernels>[0];
}

/** Deterministic pseudo-random values in [-1, 1). */
function values(n: number, seed: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 1073741824 - 1;
  });
}

/** Runs `f` with the library's own kernels, then with this module's, and returns both results. */
async function both<T>(f: (t: Tf) => T | Promise<T>): Promise<[library: T, ours: T]> {
  const t = await tf();
  useSentenceKernels(t, false);
  const library = await f(t);
  useSentenceKernels(t, true);
  return [library, await f(t)];
}

afterEach(async () => useSentenceKernels(await tf(), true));

describe('sentence encoder kernels (WASM SplitV and BatchMatMul)', () => {
  it('SplitV gives the library kernel’s parts element for element, on every axis and dtype', async () => {
    const cases: [number[], number[], number, string][] = [
      [[7, 12], [3, 4, 5], 1, 'float32'],
      [[6, 5], [2, 4], 0, 'float32'],
      [[2, 3, 8], [5, 3], 2, 'int32'],
      [[2, 9, 4], [1, 1, 7], 1, 'float32'],
    ];
    for (const [shape, sizes, axis, dtype] of cases) {
      const n = shape.reduce((a, b) => a * b, 1);
      const raw = values(n, n).map((v) => (dtype === 'int32' ? Math.round(v * 1000) : v));
      const [library, ours] = await both((t) => {
        const x = t.tensor(raw, shape, dtype);
        const parts = t.split(x, sizes, axis);
        const out = parts.map((p) => ({ shape: p.shape, values: Array.from(p.dataSync()) }));
        for (const p of [x, ...parts]) p.dispose();
        return out;
      });
      expect(ours, JSON.stringify({ shape, sizes, axis })).toEqual(library);
    }
  });

  it('BatchMatMul of a batch of matrices matches the library kernel (to float rounding), with and without transposes, and frees its temporaries', async () => {
    for (const [transposeA, transposeB] of [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ] as const) {
      const [m, k, n] = [5, 4, 6];
      const aShape = [2, 3, ...(transposeA ? [k, m] : [m, k])];
      const bShape = [2, 3, ...(transposeB ? [n, k] : [k, n])];
      const [library, ours] = await both((t) => {
        const a = t.tensor(values(6 * m * k, 7), aShape);
        const b = t.tensor(values(6 * k * n, 11), bShape);
        const before = t.backend().dataIdMap.numDataIds();
        const c = t.matMul(a, b, transposeA, transposeB);
        const out = { shape: c.shape, values: Array.from(c.dataSync()) };
        c.dispose();
        const leaked = t.backend().dataIdMap.numDataIds() - before;
        for (const x of [a, b]) x.dispose();
        return { ...out, leaked };
      });
      expect(ours.shape).toEqual([2, 3, m, n]);
      expect(ours.shape).toEqual(library.shape);
      expect(ours.leaked).toBe(0);
      for (const [i, v] of ours.values.entries()) expect(v).toBeCloseTo(library.values[i] as number, 5);
    }
  });

  it('gives the library kernels’ sentence vectors (within 1e-6) for short texts and long knowledge chunks', async () => {
    const words = 'the capstone deadline portal submit cohort mentor session laptop stipend library schedule'.split(' ');
    const texts = [
      'How do I get a refund?',
      'register for the next batch',
      ...[60, 200, 400].map((n) => Array.from({ length: n }, (_, i) => words[(i * 7) % words.length]).join(' ')),
    ];
    const [library, ours] = await both(async () => (await sentenceEncoder()).embed(texts));
    let max = 0;
    library.forEach((v, i) => {
      v.forEach((x, d) => {
        max = Math.max(max, Math.abs(x - (ours[i]?.[d] as number)));
      });
    });
    expect(ours).toHaveLength(texts.length);
    expect(max).toBeLessThan(1e-6);
  });
});

describe('sentence encoder passes', () => {
  it('groups texts into passes of at most 32 texts and about eight long ones, in order', () => {
    const long = 'x'.repeat(1500);
    expect(encoderPasses(Array.from({ length: 35 }, () => long)).map((p) => p.length)).toEqual([8, 8, 8, 8, 3]);
    expect(encoderPasses(Array.from({ length: 40 }, () => 'short text')).map((p) => p.length)).toEqual([32, 8]);
    const mixed = ['a', long, 'b', long, 'c'];
    expect(encoderPasses(mixed).flat()).toEqual(mixed);
    expect(encoderPasses([])).toEqual([]);
  });

  it('a text’s vector does not depend on the pass it is in (within 1e-6), and the loop runs between passes', async () => {
    const words = 'the capstone deadline portal submit cohort mentor session laptop stipend library schedule'.split(' ');
    const texts = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: 40 + i * 30 }, (_, k) => words[(i * 5 + k * 7) % words.length]).join(' '),
    );
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const together = await encodeSentences(texts);
    clearInterval(timer);
    expect(encoderPasses(texts.map((t) => t.slice(0, 2000))).length).toBeGreaterThan(1);
    expect(ticks).toBeGreaterThan(0);
    const alone = await Promise.all(texts.map(async (t) => (await encodeSentences([t]))[0] as number[]));
    let max = 0;
    together.forEach((v, i) => {
      v.forEach((x, d) => {
        max = Math.max(max, Math.abs(x - (alone[i]?.[d] as number)));
      });
    });
    expect(max).toBeLessThan(1e-6);
  });
});
