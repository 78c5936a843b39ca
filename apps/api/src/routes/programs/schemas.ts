import { Type as T } from '@sinclair/typebox';
import { DateTime, DayInput, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

const Day = DayInput;

export const Program = T.Object({
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

const Name = T.String({ minLength: 1, maxLength: 120, pattern: '\\S' });

export const CreateProgramBody = T.Object(
  {
    name: Name,
    description: T.Optional(Nullable(T.String({ maxLength: 2000 }))),
    startDate: T.Optional(Nullable(Day)),
    endDate: T.Optional(Nullable(Day)),
  },
  { additionalProperties: false },
);

export const UpdateProgramBody = T.Partial(CreateProgramBody, { additionalProperties: false, minProperties: 1 });

export const IncludeArchived = T.Object({
  includeArchived: T.Optional(T.Boolean({ description: 'admins: include archived (and, in the list, deleted) programs' })),
});

export const ListProgramsQuery = T.Composite([PageQuery, IncludeArchived], { additionalProperties: false });
export const SlugParams = T.Object({ slug: T.String({ minLength: 1, maxLength: 100 }) });

const Hex = T.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'hex colour' });
const Section = T.Union([T.Literal('stats'), T.Literal('faqs'), T.Literal('community'), T.Literal('zoom'), T.Literal('kb')]);

export const ProgramSettingsBody = T.Object(
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
        imageUrl: T.Optional(T.String({ maxLength: 2048 })),
        ctaText: T.Optional(T.String({ maxLength: 100 })),
        ctaLink: T.Optional(T.String({ maxLength: 2048 })),
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

export const ProgramSettings = T.Composite([
  ProgramSettingsBody,
  T.Object({
    batchId: Uuid,
    isDefault: T.Boolean({ description: 'true when the program has no settings of its own' }),
    createdAt: Nullable(DateTime),
    updatedAt: Nullable(DateTime),
  }),
]);
