export * from './client-key.js';
export * from './hybrid-sql.js';
export * from './lexeme-stats.js';
export * from './lexeme-stats-job.js';
export * from './log-buffer.js';
export * from './queries.js';
export * from './service.js';
