export * from './admin-config.js';
export * from './generate.js';
export * from './providers.js';
export * from './settings.js';
export * from './shape.js';
export * from './usage.js';
