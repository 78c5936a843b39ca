import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@cfaq/testkit';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/** docker-compose.yml as compose reads it (YAML merge keys resolved: api and worker inherit x-app). */
const text = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = parse(text, { merge: true }) as {
  services: Record<string, { env_file?: unknown; environment?: Record<string, string>; ports?: string[] }>;
};

describe('docker-compose.yml', () => {
  it('gives the API and the worker every setting of an optional .env next to it, as its header says', () => {
    for (const name of ['api', 'worker']) {
      // Only the explicit variables reached the containers: METRICS_TOKEN, CORS_ORIGINS, LOG_LEVEL set in .env were lost.
      expect(compose.services[name]?.env_file, name).toEqual([{ path: '.env', required: false }]);
      expect(compose.services[name]?.environment?.NODE_ENV, name).toBe('production');
      // A PORT or HOST in .env (for `npm start`) must not move the container off the port the healthcheck uses.
      expect(compose.services[name]?.environment, name).toMatchObject({ HOST: '0.0.0.0', PORT: '3000' });
    }
    expect(text).toMatch(/a \.env file next to this file/);
  });

  it('publishes Ollama on no host address but loopback, and says how the app uses it', () => {
    for (const port of compose.services.ollama?.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    expect(text).toContain('OLLAMA_HOST=http://ollama:11434');
  });
});
