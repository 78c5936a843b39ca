export * from './kinds.js';
export * from './reads.js';
export * from './shape.js';
export * from './stream.js';
export * from './tea.js';
export * from './write.js';
