export * from './faq-audit-job.js';
export * from './insights.js';
export * from './results.js';
export * from './run.js';
export * from './shape.js';
export * from './verdict.js';
