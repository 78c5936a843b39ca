import { faqAuditJob, runFaqAudit } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const faqAuditHandler = defineHandler(faqAuditJob, (ctx) => runFaqAudit(ctx));
