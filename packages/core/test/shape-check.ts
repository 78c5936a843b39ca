import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'vitest';

/**
 * Where `value` (a real result of a core function) differs from the response shape its route
 * declares: a failed Value.Check (a wrong type, or a date turned into text by hand), or a key the
 * shape does not list (the serializer would drop it silently), at any depth.
 */
export function shapeDrift(schema: TSchema, value: unknown, path = '$'): string[] {
  if (!Value.Check(schema, value)) {
    return [...Value.Errors(schema, value)].map((e) => `${path}${e.path.replaceAll('/', '.')}: ${e.message}`);
  }
  return extraKeys(schema, value, path);
}

function extraKeys(schema: TSchema, value: unknown, path: string): string[] {
  if (value === null || typeof value !== 'object' || value instanceof Date) return [];
  if (schema.anyOf) {
    const branch = (schema.anyOf as TSchema[]).find((s) => Value.Check(s, value));
    return branch ? extraKeys(branch, value, path) : [];
  }
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => extraKeys(schema.items, v, `${path}[${i}]`)) : [];
  if (!schema.properties) return [];
  const props = schema.properties as Record<string, TSchema>;
  return Object.entries(value).flatMap(([k, v]) =>
    k in props ? extraKeys(props[k] as TSchema, v, `${path}.${k}`) : [`${path}.${k}: not in the shape (the serializer would drop it)`],
  );
}

export function expectShape(schema: TSchema, value: unknown) {
  expect(shapeDrift(schema, value)).toEqual([]);
}
