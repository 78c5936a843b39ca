import type { Config } from '../config/schema.js';
import type { Logger } from '../runtime/logger.js';
import type { Embedder } from './embedder.js';
import { LocalEmbedder } from './local-embedder.js';

/** `auto`: Ollama when OLLAMA_HOST is set, otherwise the local lexical embedder. */
export function createEmbedder(config: Config, log: Logger): Embedder {
  const useOllama = config.EMBEDDER === 'ollama' || (config.EMBEDDER === 'auto' && config.OLLAMA_HOST);
  if (useOllama) {
    log.warn('Ollama embedder is not available in this build; using the local lexical embedder');
  }
  return new LocalEmbedder();
}
