import { batches, programSettings } from '@cfaq/db/schema/index';
import { and, eq, isNull } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, invalidField, notFound } from '../errors/index.js';
import { type AuditBy, logProgramAction } from './audit.js';
import { lockProgramForWrite } from './lock.js';
import { PROGRAM_SECTIONS, type ProgramSettingsInput, type ProgramSettingsView } from './shape.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** The defaults (spec: cream, sage, serif) for a program without a settings document. */
export function defaultProgramSettings(programName: string): ProgramSettingsInput {
  return {
    theme: { primaryColor: '#7C9A82', accentColor: '#B5C9A8', background: 'cream', fontFamily: 'serif' },
    hero: { title: programName, subtitle: 'Answers from the community, kept fresh by its members.' },
    sections: {
      showStats: true,
      showFAQs: true,
      showCommunity: true,
      showZoom: true,
      showKB: true,
      sectionOrder: [...PROGRAM_SECTIONS],
    },
    branding: { logoText: programName, footerText: '' },
  };
}

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** Checks the rules a schema cannot state alone (route schemas check them too). */
function validate(s: ProgramSettingsInput) {
  for (const key of ['primaryColor', 'accentColor'] as const) {
    if (!HEX.test(s.theme[key])) throw invalidField(`body.theme.${key}`, 'must be a hex colour such as #7C9A82');
  }
  const order = s.sections.sectionOrder;
  const isPermutation = order.length === PROGRAM_SECTIONS.length && PROGRAM_SECTIONS.every((x) => order.includes(x));
  if (!isPermutation) throw invalidField('body.sections.sectionOrder', `must list each of ${PROGRAM_SECTIONS.join(', ')} exactly once`);
}

async function programFor(ctx: Ctx, batchId: string, includeArchived: boolean) {
  const [p] = await ctx.db
    .select({ id: batches.id, name: batches.name, createdAt: batches.createdAt })
    .from(batches)
    .where(and(eq(batches.id, batchId), isNull(batches.deletedAt), includeArchived ? undefined : isNull(batches.archivedAt)))
    .limit(1);
  if (!p) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  return p;
}

export async function getProgramSettings(
  ctx: Ctx,
  batchId: string,
  opts: { includeArchived?: boolean } = {},
): Promise<ProgramSettingsView> {
  const program = await programFor(ctx, batchId, !!opts.includeArchived);
  const [row] = await ctx.db.select().from(programSettings).where(eq(programSettings.batchId, batchId)).limit(1);
  // The defaults hold since the program was made: their dates are the program's creation.
  if (!row) {
    return {
      batchId,
      ...defaultProgramSettings(program.name),
      isDefault: true,
      createdAt: program.createdAt,
      updatedAt: program.createdAt,
    };
  }
  return storedView(row);
}

/** A stored settings document as the API shows it. */
function storedView(row: typeof programSettings.$inferSelect): ProgramSettingsView {
  return {
    batchId: row.batchId,
    theme: row.theme,
    hero: row.hero,
    sections: row.sections,
    branding: row.branding,
    isDefault: false,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Replaces a program's settings document (creates it on first write). */
export async function putProgramSettings(
  ctx: Ctx,
  batchId: string,
  input: ProgramSettingsInput,
  by?: AuditBy,
): Promise<ProgramSettingsView> {
  validate(input);
  const now = ctx.clock.now();
  const values = { theme: input.theme, hero: input.hero, sections: input.sections, branding: input.branding, updatedAt: now };
  return ctx.db.transaction(async (tx) => {
    // The program locked as every write locks it: a delete racing the write lands after it (200) or
    // before it (404, nothing written or logged). The answer is the row written, not a re-read that
    // could find the program deleted after the write committed.
    await lockProgramForWrite(tx, batchId, { allowArchived: true });
    const [row] = await tx
      .insert(programSettings)
      .values({ batchId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: programSettings.batchId, set: values })
      .returning();
    await logProgramAction(tx, by, 'settings_updated', batchId);
    if (!row) throw new Error('the settings upsert returned no row');
    return storedView(row);
  });
}
