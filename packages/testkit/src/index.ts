export * from './config.js';
export * from './context.js';
export * from './database.js';
export * from './factories.js';
export * from './fakes/ai/index.js';
export * from './fakes/embedders.js';
export * from './fakes/ollama.js';
export * from './process.js';
