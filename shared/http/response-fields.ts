// Building blocks of response schemas (plain valibot, converted to the OpenAPI document as is).
import * as v from 'valibot';

export const uuidOut = v.pipe(v.string(), v.uuid());
export const dateTimeOut = v.pipe(v.string(), v.isoTimestamp());
export const intOut = v.pipe(v.number(), v.integer());
export const nullableString = v.nullable(v.string());
export const nullableDateTime = v.nullable(dateTimeOut);
export const nullableUuid = v.nullable(uuidOut);

/** The spec's default for a field that is nevertheless always present in responses. */
export const withDefault = <S extends v.GenericSchema>(schema: S, value: unknown) =>
  v.pipe(schema, v.metadata({ jsonAnnotations: { default: value } }));
