import { FaqFreshness } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { listOf } from '../../lib/schemas.js';
import { Faq } from '../faq/schemas.js';

export const AdminFaqItem = T.Composite([Faq, FaqFreshness]);
export const AdminFaqList = listOf(AdminFaqItem);
