export * from './anthropic.js';
export * from './env.js';
export * from './gemini.js';
export * from './ollama-chat.js';
export * from './openai.js';
export * from './server.js';
