export * from './awards.js';
export * from './badges.js';
export * from './events.js';
export * from './ledger.js';
export * from './points.js';
export * from './service.js';
export * from './shape.js';
