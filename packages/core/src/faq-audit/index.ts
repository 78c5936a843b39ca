export * from './insights.js';
export * from './job.js';
export * from './results.js';
export * from './run.js';
export * from './verdict.js';
