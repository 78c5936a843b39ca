import { readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The production build: every runtime package's `src/**\/*.ts` transpiled file by file to `dist/` beside
 * it (same layout, so paths taken from `import.meta.url`, such as the migrations folder and the word
 * vectors, still resolve), and the combined entry `scripts/start.ts` to `dist/start.js`. Each package's
 * `exports` map a `dist` condition to these files, so `node --conditions=dist apps/api/dist/main.js`
 * runs plain JavaScript with no tsx, no npm and no type checker in the process (the Docker image does).
 * Types are checked by `npm run build` (tsc), not here.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST_PACKAGES = ['packages/db', 'packages/core', 'apps/api', 'apps/worker'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

const common = { format: 'esm', platform: 'node', target: 'node24', sourcemap: true, logLevel: 'warning' } as const;

export async function buildDist(): Promise<string[]> {
  const written: string[] = [];
  for (const pkg of DIST_PACKAGES) {
    const src = join(ROOT, pkg, 'src');
    const out = join(ROOT, pkg, 'dist');
    rmSync(out, { recursive: true, force: true });
    const entryPoints = sources(src);
    await build({ ...common, entryPoints, outdir: out, outbase: src, bundle: false });
    written.push(...entryPoints.map((f) => relative(ROOT, join(out, relative(src, f)).replace(/\.ts$/, '.js'))));
  }
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  await build({ ...common, entryPoints: [join(ROOT, 'scripts/start.ts')], outfile: join(ROOT, 'dist/start.js'), bundle: false });
  written.push('dist/start.js');
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await buildDist();
  console.log(`build:dist: ${files.length} files (run with: node --conditions=dist apps/api/dist/main.js)`);
}
