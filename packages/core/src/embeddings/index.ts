export * from './embedder.js';
export * from './local-embedder.js';
