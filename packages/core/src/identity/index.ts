export * from './initial-admin.js';
export * from './password.js';
export * from './principal.js';
