import { describe, expect, it } from 'vitest';
import { sentenceEncoder } from '../src/embeddings/sentence-encoder.js';
import { encodeTokens } from '../src/embeddings/sentence-tokenizer.js';

type Encode = (input: string) => number[];

describe("sentence encoder tokenizer (linear, token for token the library's)", () => {
  it("gives the library tokenizer's exact token ids on varied texts", async () => {
    const model = await sentenceEncoder();
    const tokenizer = model.tokenizer as unknown as Parameters<typeof encodeTokens>[0];
    // The library's own method, on the class; the loaded model's instance carries the linear one.
    const library = (Object.getPrototypeOf(tokenizer) as { encode: Encode }).encode.bind(tokenizer);
    expect((tokenizer as unknown as { encode: Encode }).encode).not.toBe(Object.getPrototypeOf(tokenizer).encode);
    const words = 'how do i reset my password refund scholarship deadline cohort mentor schedule zoom recording'.split(' ');
    const texts = [
      '',
      ' ',
      'a',
      'How do I reset my password?',
      'café naïve résumé — “quotes” and ﬁ ligatures',
      'emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 surrogate pairs, 中文 and العربية',
      'tabs\tand\nnewlines  double  spaces',
      'xqzvbnm unknownwordsthatarenotinthevocabulary 12345 $%^&*',
      Array.from({ length: 400 }, (_, i) => words[(i * 7) % words.length]).join(' '),
    ];
    for (const text of texts) expect(encodeTokens(tokenizer, text), text.slice(0, 40)).toEqual(library(text));
  });
});
