// Startup fix for a Node.js 24 slowdown: to tell an ES module from a CommonJS one, Node reads the
// nearest package.json for every file it loads and, in doing so, parses that package's whole `exports`
// map again (package_json_reader's getPackageScopeConfig spreads a lazily parsed getter). drizzle-orm's
// map is 179 KB with 447 entries, so each of the ~100 files `drizzle-orm/pg-core` and its driver load
// cost 9-12 ms: 1.2 s of CPU and a burst of garbage in every process start (API, worker, every test
// worker). drizzle-orm is `"type": "module"`, so a relative `.js` import between its own files is an ES
// module at the URL the specifier names: this hook answers exactly that. A bare `drizzle-orm/...`
// import costs the same parse each time another of our files makes it (about 90 files do), so its
// first answer is kept per specifier and conditions. Every other import is left to Node's own
// resolution. Registered after tsx, so it
// runs first: `node --import tsx --import ./packages/db/drizzle-resolve-hook.mjs <entry>` (the compiled
// build, which needs no tsx, loads it alone).
import { registerHooks } from 'node:module';

const entry = import.meta.resolve('drizzle-orm');
const DRIZZLE_DIR = entry.slice(0, entry.lastIndexOf('/drizzle-orm/') + '/drizzle-orm/'.length);

const bare = new Map();

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/')) {
      const key = `${specifier}\0${context.conditions?.join(',')}`;
      const known = bare.get(key);
      if (known) return known;
      const resolved = nextResolve(specifier, context);
      if (resolved.url.startsWith(DRIZZLE_DIR)) bare.set(key, { ...resolved, shortCircuit: true });
      return resolved;
    }
    const parent = context.parentURL;
    if (parent?.startsWith(DRIZZLE_DIR) && (specifier.startsWith('./') || specifier.startsWith('../')) && specifier.endsWith('.js')) {
      const url = new URL(specifier, parent).href;
      if (url.startsWith(DRIZZLE_DIR)) return { url, format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
