export * from './items.js';
export * from './search.js';
