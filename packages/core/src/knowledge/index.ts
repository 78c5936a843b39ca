export * from './faq-match.js';
export * from './faq-write.js';
export * from './items.js';
export * from './search.js';
export * from './shape.js';
export * from './withdraw.js';
