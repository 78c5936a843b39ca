import type { RoutePlugin } from '../lib/types.js';
import { adminAuditRoutes } from './admin-audit/index.js';
import { adminEscalationRoutes } from './admin-escalations/index.js';
import { adminFaqRoutes } from './admin-faqs/index.js';
import { adminUserRoutes } from './admin-users/index.js';
import { aiAdminRoutes } from './ai-admin/index.js';
import { aiAnswerRoutes } from './ai-answers/index.js';
import { authRoutes } from './auth/index.js';
import { communityRoutes } from './community/index.js';
import { confRoutes } from './conf/index.js';
import { faqRoutes } from './faq/index.js';
import { knowledgeRoutes } from './knowledge/index.js';
import { moderationRoutes } from './moderation/index.js';
import { notificationRoutes } from './notifications/index.js';
import { opsRoutes } from './ops/index.js';
import { programRoutes } from './programs/index.js';
import { reputationRoutes } from './reputation/index.js';
import { searchRoutes } from './search/index.js';

/** Every route group, mounted under /api. */
export const apiRoutes: RoutePlugin = async (app) => {
  await app.register(opsRoutes);
  await app.register(authRoutes);
  await app.register(adminUserRoutes);
  await app.register(moderationRoutes);
  await app.register(programRoutes);
  await app.register(faqRoutes);
  await app.register(communityRoutes);
  await app.register(searchRoutes);
  await app.register(confRoutes);
  await app.register(knowledgeRoutes);
  await app.register(adminFaqRoutes);
  await app.register(adminEscalationRoutes);
  await app.register(aiAdminRoutes);
  await app.register(aiAnswerRoutes);
  await app.register(adminAuditRoutes);
  await app.register(reputationRoutes);
  await app.register(notificationRoutes);
};
