export * from './resolve.js';
