export * from './retention-job.js';
export * from './run.js';
