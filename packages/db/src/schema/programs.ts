import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, tstz, updatedAt } from './columns.js';

/** A program (the spec's Batch). Exactly one row has isDefault = true (partial unique index). */
export const batches = pgTable(
  'batches',
  {
    id: id(),
    name: text().notNull(),
    /** Derived from the name; unique among rows that are not deleted. */
    slug: text().notNull(),
    description: text(),
    startDate: date({ mode: 'string' }),
    endDate: date({ mode: 'string' }),
    isDefault: boolean().notNull().default(false),
    archivedAt: tstz('archived_at'),
    deletedAt: tstz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('batches_slug_key').on(t.slug).where(sql`${t.deletedAt} is null`),
    uniqueIndex('batches_one_default_key').on(t.isDefault).where(sql`${t.isDefault}`),
  ],
);

export interface ProgramTheme {
  primaryColor: string;
  accentColor: string;
  background: 'cream' | 'mist' | 'ink';
  fontFamily: 'serif' | 'sans';
}
export interface ProgramHero {
  title: string;
  subtitle: string;
  imageUrl?: string;
  ctaText?: string;
  ctaLink?: string;
}
export type ProgramSection = 'stats' | 'faqs' | 'community' | 'zoom' | 'kb';
export interface ProgramSections {
  showStats: boolean;
  showFAQs: boolean;
  showCommunity: boolean;
  showZoom: boolean;
  showKB: boolean;
  sectionOrder: ProgramSection[];
}
export interface ProgramBranding {
  logoText: string;
  footerText: string;
}

export const programSettings = pgTable('program_settings', {
  batchId: uuid()
    .primaryKey()
    .references(() => batches.id, { onDelete: 'cascade' }),
  theme: jsonb().$type<ProgramTheme>().notNull(),
  hero: jsonb().$type<ProgramHero>().notNull(),
  sections: jsonb().$type<ProgramSections>().notNull(),
  branding: jsonb().$type<ProgramBranding>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const categories = pgTable(
  'categories',
  {
    id: id(),
    batchId: uuid()
      .notNull()
      .references(() => batches.id),
    name: text().notNull(),
    slug: text().notNull(),
    description: text(),
    sortOrder: integer().notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('categories_batch_slug_key').on(t.batchId, t.slug), index('categories_batch_idx').on(t.batchId)],
);
