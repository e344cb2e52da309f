// A demo catalogue of three merchants, one per merchant type, each feed written in its own format
// (Merchant Center TSV, Agentic Commerce Protocol CSV, UCP-style JSON Lines) and imported through
// the real import path; then a shopping session with a few searches in its history.
import type { CatalogProduct } from '../../../shared/shopping/catalog.ts';
import { generateCatalog } from '../../../shared/shopping/generate-catalog.ts';
import { importCatalogFeed } from '../../../shared/shopping/import.ts';
import { searchProducts } from '../../../shared/shopping/search.ts';
import { createShoppingSession } from '../../../shared/shopping/store.ts';
import type { Seeder } from './index.ts';

const DEMO_PRODUCTS = 240;

export const DEMO_MERCHANTS = {
  affiliate: { domain: 'trailhead-outfitters.example', tracking: { tag: 'tcs-demo-20', utm_source: 'tcs' } },
  acp: { domain: 'ferro-kitchen.example' },
  ucp: { domain: 'casa-home.example' },
} as const;

const dollars = (cents: number) => (cents / 100).toFixed(2);
const tsvCell = (value: string) => value.replace(/[\t\r\n]+/g, ' ');
const csvCell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const path = (p: CatalogProduct) => new URL(p.product_url).pathname;

/** Google Merchant Center, tab-separated, prices as "15.00 USD", some on sale. */
export const merchantCenterFeed = (products: readonly CatalogProduct[], domain: string): string => {
  const header =
    'id\ttitle\tdescription\tlink\timage_link\tprice\tsale_price\tavailability\tbrand\tgtin\tproduct_type\tgoogle_product_category\tproduct_rating';
  const rows = products.map((p, i) =>
    [
      p.id,
      p.title,
      p.description,
      `https://${domain}${path(p)}`,
      `https://${domain}/images/${p.id.toLowerCase()}.jpg`,
      `${dollars(p.price_cents + (i % 5 === 0 ? 500 : 0))} USD`,
      i % 5 === 0 ? `${dollars(p.price_cents)} USD` : '',
      p.availability.replace('_', ' '),
      p.brand,
      String(4_006_381_333_900 + i),
      p.product_type,
      p.category,
      p.rating === null ? '' : String(p.rating),
    ]
      .map(tsvCell)
      .join('\t'),
  );
  return [header, ...rows].join('\n') + '\n';
};

/** The Agentic Commerce Protocol's flat product feed, comma-separated. */
export const agenticCommerceFeed = (products: readonly CatalogProduct[], domain: string): string => {
  const header =
    'item_id,title,description,url,brand,image_url,price,availability,product_category,seller_name,enable_search,enable_checkout';
  const rows = products.map((p) =>
    [
      p.id,
      p.title,
      p.description,
      `https://${domain}${path(p)}`,
      p.brand,
      `https://${domain}/media/${p.id.toLowerCase()}.webp`,
      `${dollars(p.price_cents)} USD`,
      p.availability,
      p.category,
      'Ferro Kitchen',
      'true',
      'true',
    ]
      .map(csvCell)
      .join(','),
  );
  return [header, ...rows].join('\n') + '\n';
};

/** JSON Lines with prices in minor units, as the Universal Commerce Protocol carries them. */
export const universalCommerceFeed = (products: readonly CatalogProduct[], domain: string): string =>
  products
    .map((p) =>
      JSON.stringify({
        id: p.id,
        title: p.title,
        description: p.description,
        url: `https://${domain}${path(p)}`,
        image_url: `https://${domain}/img/${p.id.toLowerCase()}.jpg`,
        brand: p.brand,
        price: { amount: p.price_cents, currency: p.currency },
        categories: p.category.split(' > '),
        product_type: p.product_type,
        rating: p.rating,
        availability: p.availability,
      }),
    )
    .join('\n') + '\n';

/** The generated demo products, dealt to the three merchants in turn. */
export const demoFeeds = () => {
  const { products } = generateCatalog(DEMO_PRODUCTS, 2026);
  const share = (n: number) => products.filter((_, i) => i % 3 === n);
  return {
    affiliate: merchantCenterFeed(share(0), DEMO_MERCHANTS.affiliate.domain),
    acp: agenticCommerceFeed(share(1), DEMO_MERCHANTS.acp.domain),
    ucp: universalCommerceFeed(share(2), DEMO_MERCHANTS.ucp.domain),
  };
};

export const seedShopping: Seeder = async ({ owner }) => {
  const feeds = demoFeeds();
  await importCatalogFeed(feeds.affiliate, {
    merchant: DEMO_MERCHANTS.affiliate.domain,
    merchantType: 'affiliate',
    trackingParams: { ...DEMO_MERCHANTS.affiliate.tracking },
  });
  await importCatalogFeed(feeds.acp, { merchant: DEMO_MERCHANTS.acp.domain, merchantType: 'acp' });
  await importCatalogFeed(feeds.ucp, { merchant: DEMO_MERCHANTS.ucp.domain, merchantType: 'ucp' });
  const session = await createShoppingSession(owner, { title: 'Weekend at the beach' });
  const search = { merchant_type: null, max_results: 10, price_min_cents: null, price_max_cents: null };
  await searchProducts(owner, session.id, { ...search, query: 'beach towel' });
  await searchProducts(owner, session.id, { ...search, query: 'coffee maker', price_max_cents: 6000 });
  return { shopping_session_id: session.id };
};
