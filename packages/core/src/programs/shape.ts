import { type Static, Type as T } from '@sinclair/typebox';
import { IMAGE_URL_PATTERN, LINK_URL_PATTERN } from '../shared/link-patterns.js';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of programs (batches) and their settings: declared once here, used as route schemas and, through Static, as core types. */

export const ProgramShape = T.Object({
  id: Uuid,
  name: T.String(),
  slug: T.String(),
  description: Nullable(T.String()),
  startDate: Nullable(T.String()),
  endDate: Nullable(T.String()),
  isDefault: T.Boolean(),
  archived: T.Boolean(),
  archivedAt: Nullable(DateTime),
  deletedAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ProgramView = Static<typeof ProgramShape>;

export const PROGRAM_SECTIONS = ['stats', 'faqs', 'community', 'zoom', 'kb'] as const;

const Hex = T.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'hex colour' });
const Section = literals(PROGRAM_SECTIONS);

/** A program's settings document: the PUT body, and the response without the bookkeeping fields. */
export const ProgramSettingsDocShape = T.Object(
  {
    theme: T.Object(
      {
        primaryColor: Hex,
        accentColor: Hex,
        background: T.Union([T.Literal('cream'), T.Literal('mist'), T.Literal('ink')]),
        fontFamily: T.Union([T.Literal('serif'), T.Literal('sans')]),
      },
      { additionalProperties: false },
    ),
    hero: T.Object(
      {
        title: T.String({ maxLength: 200 }),
        subtitle: T.String({ maxLength: 500 }),
        imageUrl: T.Optional(
          T.String({
            maxLength: 2048,
            pattern: IMAGE_URL_PATTERN,
            description: 'an http(s) URL with a host, or a path on this site (/...)',
          }),
        ),
        ctaText: T.Optional(T.String({ maxLength: 100 })),
        ctaLink: T.Optional(
          T.String({
            maxLength: 2048,
            pattern: LINK_URL_PATTERN,
            description: 'an http(s) URL with a host, a path on this site (/...), #anchor or mailto:',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    sections: T.Object(
      {
        showStats: T.Boolean(),
        showFAQs: T.Boolean(),
        showCommunity: T.Boolean(),
        showZoom: T.Boolean(),
        showKB: T.Boolean(),
        sectionOrder: T.Array(Section, {
          minItems: 5,
          maxItems: 5,
          uniqueItems: true,
          description: 'a permutation of stats, faqs, community, zoom, kb',
        }),
      },
      { additionalProperties: false },
    ),
    branding: T.Object(
      { logoText: T.String({ maxLength: 200 }), footerText: T.String({ maxLength: 1000 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ProgramSettingsInput = Static<typeof ProgramSettingsDocShape>;

export const ProgramSettingsShape = T.Composite([
  ProgramSettingsDocShape,
  T.Object({
    batchId: Uuid,
    isDefault: T.Boolean({ description: 'true when the program has no settings of its own' }),
    createdAt: { ...DateTime, description: "when the settings were first written; the program's creation while they are the defaults" },
    updatedAt: { ...DateTime, description: "the last settings write; the program's creation while they are the defaults" },
  }),
]);
export type ProgramSettingsView = Static<typeof ProgramSettingsShape>;
