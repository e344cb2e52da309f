import { OBJECTS } from '../grants.ts';
import type { Route } from '../routes.ts';

export const brandKitRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/brand-kits/generate-from-upload',
    entry: 'brand-kits/generate-from-upload',
    // HeadObject and GetObject of the caller's direct upload (404 when missing), PutObject of the draft
    // logos and presigned GETs of them; no table access.
    bucket: {
      read: [OBJECTS.uploads, OBJECTS.drafts],
      write: [OBJECTS.drafts],
      list: [OBJECTS.uploads],
    },
    // pdf.js and a decoded 50 MB document need room; extraction stops after 10 s, API Gateway at 30 s.
    memoryMb: 1536,
    timeoutSeconds: 29,
    // 1.5 GB for up to 29 s each: at the default 200/s it alone could take the account's concurrency.
    throttle: { rate: 20, burst: 40 },
  },
  {
    method: 'POST',
    path: '/api/v1/brand-kits',
    entry: 'brand-kits/create-brand-kit',
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: {
      // HeadObject of a direct upload or another kit's logo, and of the copy (404 `Logo not found` or
      // no copy yet when missing); CopyObject from a draft logo or a direct upload to its copy under
      // brand-kits/; presigned GETs of the kit's logos. Copies are never deleted (other kits name them).
      read: [OBJECTS.drafts, OBJECTS.uploads, OBJECTS.brandKitLogos],
      write: [OBJECTS.brandKitLogos],
      list: [OBJECTS.drafts, OBJECTS.uploads, OBJECTS.brandKitLogos],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/brand-kits/{brand_kit_id}',
    entry: 'brand-kits/get-brand-kit',
    table: ['GetItem'],
    // Presigned GETs of the kit's logos (no request).
    bucket: { read: [OBJECTS.brandKitLogos] },
  },
];
