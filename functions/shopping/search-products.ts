// POST /api/v1/shopping/sessions/{session_id}/search (spec 5): search the merchant catalogue.
import { httpRoute } from '#shared/http/route';
import { ProductSearchResponse, SearchProductsBody, ShoppingSessionPath } from '#shared/shopping/schemas';
import { searchProducts } from '#shared/shopping/search';

export const handler = httpRoute(
  {
    path: ShoppingSessionPath,
    body: SearchProductsBody,
    response: ProductSearchResponse,
    summary: 'Search products in a shopping session',
  },
  ({ caller, path, body }) => searchProducts(caller.userId, path.session_id, body),
);
