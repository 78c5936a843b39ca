export * from './data-dir.js';
export * from './dev-secrets.js';
export * from './load.js';
export * from './schema.js';
