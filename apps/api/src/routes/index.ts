import type { RoutePlugin } from '../lib/types.js';
import { adminUserRoutes } from './admin-users/index.js';
import { authRoutes } from './auth/index.js';
import { moderationRoutes } from './moderation/index.js';
import { opsRoutes } from './ops/index.js';

/** Every route group, mounted under /api. */
export const apiRoutes: RoutePlugin = async (app) => {
  await app.register(opsRoutes);
  await app.register(authRoutes);
  await app.register(adminUserRoutes);
  await app.register(moderationRoutes);
};
