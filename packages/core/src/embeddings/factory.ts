import type { Config } from '../config/schema.js';
import type { Logger } from '../runtime/logger.js';
import type { Embedder } from './embedder.js';
import { LocalEmbedder } from './local-embedder.js';
import { OllamaEmbedder } from './ollama-embedder.js';
import { SENTENCE_LAYOUTS, SentenceEmbedder } from './sentence-embedder.js';

/**
 * `auto`: Ollama when OLLAMA_HOST is set, otherwise the sentence embedder (lexical hashing, GloVe and
 * the Universal Sentence Encoder lite, all offline). `local`: the earlier default, hashing and GloVe.
 */
export function createEmbedder(config: Config, log: Logger): Embedder {
  const useOllama = config.EMBEDDER === 'ollama' || (config.EMBEDDER === 'auto' && config.OLLAMA_HOST);
  if (useOllama) {
    if (!config.OLLAMA_HOST) throw new Error('EMBEDDER=ollama needs OLLAMA_HOST');
    log.info({ host: config.OLLAMA_HOST, model: config.OLLAMA_EMBED_MODEL }, 'embeddings from Ollama');
    return new OllamaEmbedder({
      host: config.OLLAMA_HOST,
      model: config.OLLAMA_EMBED_MODEL,
      ...(config.OLLAMA_API_KEY ? { apiKey: config.OLLAMA_API_KEY } : {}),
    });
  }
  if (config.EMBEDDER === 'local') return new LocalEmbedder();
  return new SentenceEmbedder(SENTENCE_LAYOUTS[config.EMBEDDER_LAYOUT]);
}
