import { categories } from '@cfaq/db/schema/index';
import { and, asc, eq } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { resolveProgramId } from '../programs/resolve.js';
import type { DbOrTx } from '../shared/db.js';
import type { CategoryView } from './shape.js';

/** Seeded into a program the first time its categories are needed and it has none. */
export const DEFAULT_CATEGORIES: readonly { slug: string; name: string; description: string }[] = [
  { slug: 'general', name: 'General', description: 'Questions that fit nowhere else' },
  { slug: 'getting-started', name: 'Getting Started', description: 'Joining, onboarding and first steps' },
  { slug: 'program', name: 'Program', description: 'Schedule, sessions, deadlines and requirements' },
  { slug: 'account', name: 'Account', description: 'Sign-in, profile and notifications' },
  { slug: 'technical', name: 'Technical', description: 'Tools, setup and troubleshooting' },
  { slug: 'community', name: 'Community', description: 'Posting, voting, reputation and etiquette' },
];

/** The program's categories, seeding the default list first when it has none. */
export async function programCategories(db: DbOrTx, batchId: string): Promise<CategoryView[]> {
  const read = () =>
    db
      .select({
        id: categories.id,
        batchId: categories.batchId,
        name: categories.name,
        slug: categories.slug,
        description: categories.description,
        sortOrder: categories.sortOrder,
      })
      .from(categories)
      .where(eq(categories.batchId, batchId))
      .orderBy(asc(categories.sortOrder), asc(categories.name));
  const rows = await read();
  if (rows.length > 0) return rows;
  await db
    .insert(categories)
    .values(DEFAULT_CATEGORIES.map((c, i) => ({ batchId, ...c, sortOrder: i })))
    .onConflictDoNothing();
  return read();
}

export async function listCategories(ctx: Pick<CoreContext, 'db'>, q: { batchId?: string | undefined; staff?: boolean }) {
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: !!q.staff });
  return programCategories(ctx.db, batchId);
}

/** True when the slug names one of the program's categories. */
export async function categoryExists(db: DbOrTx, batchId: string, slug: string): Promise<boolean> {
  await programCategories(db, batchId);
  const [row] = await db
    .select({ id: categories.id })
    .from(categories)
    .where(and(eq(categories.batchId, batchId), eq(categories.slug, slug)))
    .limit(1);
  return !!row;
}
