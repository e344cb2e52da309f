import type { Route } from '../routes.ts';

export const brandKitRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/brand-kits/generate-from-upload',
    entry: 'brand-kits/generate-from-upload',
    // Reads the caller's direct uploads, writes draft logos; no table access.
    bucket: 'readWrite',
    // pdf.js and a decoded 50 MB document need room; extraction stops after 10 s, API Gateway at 30 s.
    memoryMb: 1536,
    timeoutSeconds: 29,
  },
  {
    method: 'POST',
    path: '/api/v1/brand-kits',
    entry: 'brand-kits/create-brand-kit',
    table: 'readWrite',
    bucket: 'readWrite',
  },
  {
    method: 'GET',
    path: '/api/v1/brand-kits/{brand_kit_id}',
    entry: 'brand-kits/get-brand-kit',
    table: 'read',
    bucket: 'read',
  },
];
