import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { dropDatabases, ensureTemplate, resolveServerUrl } from './database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dbServerUrl: string;
    dbTemplate: string;
    dbPrefix: string;
  }
}

/** Migrates the template database once per run; each test file clones it. */
export default async function setup(project: TestProject) {
  const server = await resolveServerUrl();
  const template = await ensureTemplate(server.url);
  const prefix = `cfaq_t_${randomBytes(3).toString('hex')}`;
  project.provide('dbServerUrl', server.url);
  project.provide('dbTemplate', template);
  project.provide('dbPrefix', prefix);
  return async () => {
    await dropDatabases(server.url, prefix);
    await server.stop?.();
  };
}
