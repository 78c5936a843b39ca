import { Type as T } from '@sinclair/typebox';
import { DayInput, Nullable, PageQuery, VisibleText } from '../../lib/schemas.js';

export {
  ProgramSettingsDocShape as ProgramSettingsBody,
  ProgramSettingsShape as ProgramSettings,
  ProgramShape as Program,
} from '@cfaq/core';

const Day = DayInput;

const Name = VisibleText(1, 120);

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

export const IncludeArchived = T.Object(
  {
    includeArchived: T.Optional(T.Boolean({ description: 'admins: include archived (and, in the list, deleted) programs' })),
  },
  { additionalProperties: false },
);

export const ListProgramsQuery = T.Composite([PageQuery, IncludeArchived], { additionalProperties: false });
export const SlugParams = T.Object({ slug: T.String({ minLength: 1, maxLength: 100 }) });
