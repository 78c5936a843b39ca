export * from './embed-row.js';
export * from './embedder.js';
export * from './factory.js';
export * from './job.js';
export * from './local-embedder.js';
export * from './ollama-embedder.js';
export * from './word-vectors.js';
