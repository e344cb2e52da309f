/** A Content-Type value's media type alone, lower-case (`Image/PNG; q=1` → `image/png`; '' for none). */
export const bareMediaType = (contentType: string | null | undefined): string =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase();
