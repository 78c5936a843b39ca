export * from './boss.js';
export * from './contract.js';
export * from './group-commit.js';
export * from './queue.js';
export * from './registry.js';
export * from './run.js';
