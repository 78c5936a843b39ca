import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { dropDatabases, ensureTemplate } from './database.js';
import { machineDeps, prepareTestServer, TestServerUnavailable } from './provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dbServerUrl: string;
    dbTemplate: string;
    dbPrefix: string;
  }
}

/**
 * Migrates the template database once per run; each test file clones it. A machine without a usable
 * PostgreSQL is provisioned when it can be, else the run stops with one line naming the command.
 */
export default async function setup(project: TestProject) {
  let server: Awaited<ReturnType<typeof prepareTestServer>>;
  try {
    server = await prepareTestServer(machineDeps);
  } catch (err) {
    if (!(err instanceof TestServerUnavailable)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
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
