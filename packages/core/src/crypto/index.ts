export * from './secret-box.js';
export * from './tokens.js';
