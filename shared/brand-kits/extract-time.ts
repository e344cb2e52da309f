// How long reading one document may take, apart from both of its readers' modules: the extractor
// (loaded in its worker process, without valibot) and BRAND_KIT_LIMITS (bundled by functions that
// carry no parser), so each reads it without loading the other.

/** How long reading one document may take (BRAND_KIT_LIMITS.extractMs), once its parser is loaded. */
export const EXTRACT_MS = 10_000;
