const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in its text form (what a uuid column takes without an error). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
