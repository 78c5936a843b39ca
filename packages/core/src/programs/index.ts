export * from './audit.js';
export * from './batches.js';
export * from './live.js';
export * from './lock.js';
export * from './resolve.js';
export * from './settings.js';
export * from './shape.js';
