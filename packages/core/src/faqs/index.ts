export * from './categories.js';
export * from './job.js';
export * from './review.js';
export * from './service.js';
export * from './view.js';
export * from './visibility.js';
