import type { RoutePlugin } from '../lib/types.js';
import { opsRoutes } from './ops/index.js';
import { searchRoutes } from './search/index.js';

/** Every route group, mounted under /api. */
export const apiRoutes: RoutePlugin = async (app) => {
  await app.register(opsRoutes);
  await app.register(searchRoutes);
};
