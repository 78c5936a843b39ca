import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One relevance set (data/*.json): FAQs and, for each, queries written the way people search. */
export interface Dataset {
  name: string;
  faqs: { id: string; category: string; question: string; answer: string }[];
  queries: { faqId: string; kind: string; text: string }[];
}

export const DATA_DIR = join(import.meta.dirname, 'data');

/** The set named (data/<name>.json). */
export const readDataset = (name: string) => JSON.parse(readFileSync(join(DATA_DIR, `${name}.json`), 'utf8')) as Dataset;

/** Every set's name, in file order. */
export const datasetNames = () =>
  readdirSync(DATA_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length));

/** The sets BENCH_RELEVANCE_DATA names (a comma list), or every set. */
export function selectedDatasets(): Dataset[] {
  const only = process.env.BENCH_RELEVANCE_DATA?.split(',').map((s) => s.trim());
  return datasetNames()
    .map(readDataset)
    .filter((ds) => !only || only.includes(ds.name));
}
