import { type Embedder, LocalEmbedder } from '@cfaq/core';

/** A unit vector along `axis`, or one at cosine `cos` to that axis (the rest on axis + 1). */
export function unitVector(axis: number, cos = 1): number[] {
  const v = new Array<number>(768).fill(0);
  v[axis] = cos;
  v[(axis + 1) % 768] = Math.sqrt(Math.max(0, 1 - cos * cos));
  return v;
}

/**
 * A test embedder returning crafted vectors: `rules` maps a text (as the embedder receives it) to a
 * vector; other texts fall back to the local lexical embedder. `failing = true` makes every call throw,
 * as an unreachable model server would.
 */
export class CraftedEmbedder implements Embedder {
  readonly model = 'crafted-test';
  failing = false;
  calls = 0;
  private readonly local = new LocalEmbedder();
  constructor(private readonly rules: (text: string) => number[] | undefined = () => undefined) {}

  async embed(texts: string[]): Promise<number[][]> {
    this.calls++;
    if (this.failing) throw new Error('embedder unavailable');
    const fallback = await this.local.embed(texts);
    return texts.map((t, i) => this.rules(t) ?? (fallback[i] as number[]));
  }

  async warm() {
    return { model: this.model, ms: 0 };
  }
}

/**
 * The embedder of the AI pipeline tests: "[axisN]" in a text embeds it exactly on axis N, so a test
 * places a FAQ or post on an axis and knowledge rows at a chosen cosine to it (`unitVector(N, cos)`).
 */
export const axisEmbedder = () =>
  new CraftedEmbedder((text) => {
    const m = /\[axis(\d+)\]/.exec(text);
    return m ? unitVector(Number(m[1])) : undefined;
  });
