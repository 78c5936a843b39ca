export * from './job.js';
export * from './run.js';
