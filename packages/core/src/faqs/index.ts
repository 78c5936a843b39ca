export * from './categories.js';
export * from './escalated.js';
export * from './job.js';
export * from './promotion.js';
export * from './promotion-job.js';
export * from './review.js';
export * from './service.js';
export * from './view.js';
