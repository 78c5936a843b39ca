export * from './embedder.js';
export * from './job.js';
export * from './local-embedder.js';
