import { Type as T, type TSchema } from '@sinclair/typebox';

/** Shared request and response pieces, so every route spells them the same way. */
export const Uuid = T.String({ format: 'uuid' });
export const IdParams = T.Object({ id: Uuid });
export const DateTime = T.String({ format: 'date-time' });
export const Nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);

export const PageQuery = T.Object({
  page: T.Optional(T.Integer({ minimum: 1, default: 1 })),
  limit: T.Optional(T.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

/** `?batchId=`: the program to read or write; the default program when absent. */
export const BatchQuery = T.Object({ batchId: T.Optional(Uuid) });

export const listOf = <S extends TSchema>(item: S) =>
  T.Object({ items: T.Array(item), total: T.Integer(), page: T.Integer(), limit: T.Integer() });

export const Ok = T.Object({ ok: T.Literal(true) });
