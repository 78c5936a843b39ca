export * from './comments.js';
export * from './convert.js';
export * from './escalation.js';
export * from './escalation-job.js';
export * from './posts.js';
export * from './shape.js';
export * from './view.js';
export * from './votes.js';
