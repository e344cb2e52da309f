// Spec §"Brand" and endpoint 7, with the limits exactly as the spec states them.
import * as v from 'valibot';
import { model, optionalNullable, string, uuid } from '../http/fields.ts';
import { dateTimeOut, intOut, nullableString, uuidOut, withDefault } from '../http/response-fields.ts';

export const BRAND_LIMITS = { name: { min: 1, max: 200 }, url: 500, industry: 100 } as const;

export const CreateBrandBody = model({
  name: string(BRAND_LIMITS.name),
  website_url: optionalNullable(string({ max: BRAND_LIMITS.url })),
  logo_url: optionalNullable(string({ max: BRAND_LIMITS.url })),
  industry: optionalNullable(string({ max: BRAND_LIMITS.industry })),
  description: optionalNullable(string()),
});
export type CreateBrandInput = v.InferOutput<typeof CreateBrandBody>;

export const BrandPath = model({ brand_id: uuid() });

export const Brand = v.object({
  id: uuidOut,
  name: v.string(),
  created_at: dateTimeOut,
  updated_at: dateTimeOut,
  website_url: nullableString,
  logo_url: nullableString,
  industry: nullableString,
  description: nullableString,
  partner_slug: nullableString,
  brand_kit_count: withDefault(intOut, 0),
  audit_count: withDefault(intOut, 0),
  competitor_count: withDefault(intOut, 0),
});
export type Brand = v.InferOutput<typeof Brand>;

export const BrandList = v.array(Brand);
