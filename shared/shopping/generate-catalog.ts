// Deterministic synthetic catalogue for benchmarks and ranking checks: the same seed always yields
// the same products. It also yields a labelled query set in the WANDS layout, with labels derived
// from the generator's own ground truth (product noun and attribute), for scripts/eval-search.ts.
import type { CatalogProduct, MerchantType } from './catalog.ts';

/** mulberry32: tiny, fast, good enough for test data. */
export const seededRandom = (seed: number) => {
  let a = seed >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

interface Department {
  name: string;
  path: string;
  nouns: readonly string[];
  brands: readonly string[];
  materials: readonly string[];
  /** Median price in cents. */
  price: number;
}

const DEPARTMENTS: readonly Department[] = [
  {
    name: 'Footwear',
    path: 'Apparel & Accessories > Shoes',
    nouns: [
      'running shoes',
      'sneakers',
      'sandals',
      'hiking boots',
      'slippers',
      'loafers',
      'flip flops',
      'rain boots',
    ],
    brands: ['Strideline', 'Kestrel', 'Northpeak', 'Salto', 'Velocé', 'Tidewalk'],
    materials: ['leather', 'canvas', 'mesh', 'suede', 'rubber'],
    price: 7900,
  },
  {
    name: 'Furniture',
    path: 'Home & Garden > Furniture',
    nouns: [
      'coffee table',
      'dining chair',
      'sofa',
      'bookshelf',
      'office chair',
      'bed frame',
      'nightstand',
      'tv stand',
    ],
    brands: ['Oakhurst', 'Nordhaven', 'Linden & Co', 'Casa Móvil', 'Brightwell'],
    materials: ['oak', 'walnut', 'metal', 'velvet', 'rattan', 'pine'],
    price: 24900,
  },
  {
    name: 'Kitchen',
    path: 'Home & Garden > Kitchen & Dining',
    nouns: [
      'coffee maker',
      'chef knife',
      'frying pan',
      'blender',
      'coffee mug',
      'cutting board',
      'toaster',
      'kettle',
    ],
    brands: ['Culina', 'Brightwell', 'Ferro', 'Hearthstone', 'Mise'],
    materials: ['stainless steel', 'ceramic', 'cast iron', 'bamboo', 'glass'],
    price: 4900,
  },
  {
    name: 'Electronics',
    path: 'Electronics > Audio & Accessories',
    nouns: [
      'wireless headphones',
      'bluetooth speaker',
      'usb c cable',
      'phone case',
      'laptop stand',
      'smart watch',
    ],
    brands: ['Voltra', 'Sonique', 'Arclight', 'Pixelmoor', 'Kestrel'],
    materials: ['aluminium', 'silicone', 'plastic', 'braided nylon'],
    price: 5900,
  },
  {
    name: 'Outdoor',
    path: 'Sporting Goods > Outdoor Recreation',
    nouns: [
      'beach towel',
      'camping tent',
      'sleeping bag',
      'beach umbrella',
      'cooler',
      'patio chair',
      'hammock',
    ],
    brands: ['Northpeak', 'Tidewalk', 'Sundune', 'Trailhead', 'Åsgard Outdoor'],
    materials: ['cotton', 'polyester', 'nylon', 'canvas', 'aluminium'],
    price: 6900,
  },
  {
    name: 'Apparel',
    path: 'Apparel & Accessories > Clothing',
    nouns: ['t-shirt', 'rain jacket', 'jeans', 'hoodie', 'swim shorts', 'wool socks', 'sun hat', 'dress'],
    brands: ['Loomwell', 'Salto', 'Fjällräv', 'Cotton Bay', 'Urbanist'],
    materials: ['cotton', 'linen', 'wool', 'denim', 'recycled polyester'],
    price: 3900,
  },
  {
    name: 'Home Decor',
    path: 'Home & Garden > Decor',
    nouns: [
      'wall art',
      'table lamp',
      'throw pillow',
      'area rug',
      'curtains',
      'scented candle',
      'wall mirror',
    ],
    brands: ['Maison Lumière', 'Nordhaven', 'Hearthstone', 'Indigo Loft', 'Brightwell'],
    materials: ['linen', 'jute', 'brass', 'ceramic', 'wool'],
    price: 4500,
  },
];

const COLORS = ['black', 'white', 'navy', 'red', 'grey', 'beige', 'green', 'pink', 'blue', 'brown'];
const STYLES = ['modern', 'classic', 'vintage', 'lightweight', 'waterproof', 'compact', 'premium', 'rustic'];
const USES = [
  'the beach',
  'everyday use',
  'travel',
  'the office',
  'small spaces',
  'gifting',
  'camping',
  'the gym',
];
const FILLER = [
  'Designed to last with careful attention to detail.',
  'Easy to clean and simple to care for.',
  'Backed by a two-year warranty.',
  'Ships in recyclable packaging.',
  'A customer favourite for its comfort and value.',
  'Tested for durability in real homes.',
];
const MERCHANTS: readonly { domain: string; type: MerchantType }[] = [
  { domain: 'shop.example.com', type: 'affiliate' },
  { domain: 'outlet.example.net', type: 'affiliate' },
  { domain: 'store.example.org', type: 'ucp' },
  { domain: 'market.example.io', type: 'acp' },
];

/** Ground truth the generator knows about each product, for labelled query sets. */
export interface GeneratedTruth {
  noun: string;
  color: string;
  material: string;
  brand: string;
  department: string;
}

export interface GeneratedCatalog {
  products: CatalogProduct[];
  truth: Map<string, GeneratedTruth>;
}

export interface GenerateOptions {
  /**
   * Share of products (0–1) that come in variants: the product and 1–4 more in other colours or
   * sizes, sharing an item_group_id. 0 (the default) yields exactly the catalogue it always did.
   */
  variantShare?: number;
}

const SIZES = ['XS', 'S', 'M', 'L', 'XL'];

export const generateCatalog = (
  count: number,
  seed = 42,
  options: GenerateOptions = {},
): GeneratedCatalog => {
  const rng = seededRandom(seed);
  // Variants draw from their own stream, so the products they follow are those of the plain catalogue.
  const variantRng = seededRandom(seed ^ 0x5eed);
  const variantShare = options.variantShare ?? 0;
  const products: CatalogProduct[] = [];
  const truth = new Map<string, GeneratedTruth>();
  while (products.length < count) {
    const dept = pick(rng, DEPARTMENTS);
    const noun = pick(rng, dept.nouns);
    const brand = pick(rng, dept.brands);
    const color = pick(rng, COLORS);
    const material = pick(rng, dept.materials);
    const style = pick(rng, STYLES);
    const use = pick(rng, USES);
    const other = pick(rng, pick(rng, DEPARTMENTS).nouns);
    const titleParts = [
      brand,
      rng() < 0.5 ? style : '',
      color,
      material,
      noun,
      rng() < 0.3 ? `for ${use}` : '',
    ];
    const title = titleParts.filter(Boolean).join(' ');
    const sentences = [
      `This ${style} ${noun} is made from ${material} and comes in ${color}.`,
      `Perfect for ${use}.`,
      // Distractor: another product named only in the description.
      rng() < 0.4 ? `Pairs well with our ${other}.` : '',
      pick(rng, FILLER),
      pick(rng, FILLER),
    ];
    const merchant = pick(rng, MERCHANTS);
    const id = `P${String(products.length + 1).padStart(6, '0')}`;
    const url = `https://${merchant.domain}/p/${id.toLowerCase()}`;
    // Log-normal-ish prices around the department median.
    const price = Math.max(199, Math.round((dept.price * Math.exp((rng() - 0.5) * 1.6)) / 100) * 100 - 1);
    products.push({
      id,
      title,
      description: sentences.filter(Boolean).join(' '),
      product_url: url,
      image_url: `https://${merchant.domain}/img/${id.toLowerCase()}.jpg`,
      brand,
      product_type: `${dept.name} > ${noun}`,
      category: dept.path,
      price_cents: price,
      currency: 'USD',
      rating: rng() < 0.8 ? Math.round((3 + rng() * 2) * 10) / 10 : null,
      availability: rng() < 0.9 ? 'in_stock' : 'out_of_stock',
      merchant_domain: merchant.domain,
      merchant_type: merchant.type,
      affiliate_url: merchant.type === 'affiliate' ? `${url}?tag=tcs-20` : url,
      merchant: merchant.domain,
    });
    truth.set(id, { noun, color, material, brand, department: dept.name });
    if (variantShare > 0 && variantRng() < variantShare) {
      addVariants(products.at(-1)!, truth.get(id)!, products, truth, count, variantRng);
    }
  }
  return { products, truth };
};

/** 1–4 more variants of `base`: other colours (a furniture or decor piece) or sizes (the rest). */
const addVariants = (
  base: CatalogProduct,
  baseTruth: GeneratedTruth,
  products: CatalogProduct[],
  truth: Map<string, GeneratedTruth>,
  count: number,
  rng: Rng,
): void => {
  base.item_group_id = `G${base.id.slice(1)}`;
  const bySize = !base.category.startsWith('Home & Garden');
  const extra = 1 + Math.floor(rng() * 4);
  for (let v = 0; v < extra && products.length < count; v++) {
    const id = `P${String(products.length + 1).padStart(6, '0')}`;
    const color = bySize ? baseTruth.color : pick(rng, COLORS);
    const title = bySize
      ? `${base.title} size ${SIZES[v % SIZES.length]}`
      : base.title.replace(baseTruth.color, color);
    const url = base.product_url.replace(base.id.toLowerCase(), id.toLowerCase());
    products.push({
      ...base,
      id,
      title,
      product_url: url,
      image_url: base.image_url.replace(base.id.toLowerCase(), id.toLowerCase()),
      // Bigger sizes and other finishes cost up to a fifth more or less.
      price_cents: Math.max(199, Math.round(base.price_cents * (0.8 + rng() * 0.4))),
      affiliate_url: base.affiliate_url.replace(base.id.toLowerCase(), id.toLowerCase()),
    });
    truth.set(id, { ...baseTruth, color });
  }
};

export interface LabelledQuery {
  id: number;
  query: string;
  query_class: string;
  /** product id → Exact | Partial | Irrelevant */
  labels: Map<string, 'Exact' | 'Partial' | 'Irrelevant'>;
}

/**
 * Queries a shopper might type about the generated catalogue, judged by ground truth: Exact when
 * the noun and the named attribute match, Partial when only the noun does, Irrelevant for a sample
 * of products that merely share words (the description distractors among them).
 */
export const generateQueries = (catalog: GeneratedCatalog, count: number, seed = 7): LabelledQuery[] => {
  const rng = seededRandom(seed);
  const out: LabelledQuery[] = [];
  for (let q = 0; q < count; q++) {
    const dept = pick(rng, DEPARTMENTS);
    const noun = pick(rng, dept.nouns);
    const kind = pick(rng, ['noun', 'color', 'material', 'brand', 'chatty'] as const);
    const color = pick(rng, COLORS);
    const material = pick(rng, dept.materials);
    const brand = pick(rng, dept.brands);
    const query =
      kind === 'noun'
        ? noun
        : kind === 'color'
          ? `${color} ${noun}`
          : kind === 'material'
            ? `${material} ${noun}`
            : kind === 'brand'
              ? `${brand} ${noun}`
              : `a ${color} ${noun} for the house`;
    const attributeMatches = (t: GeneratedTruth) =>
      kind === 'noun' ||
      ((kind === 'color' || kind === 'chatty') && t.color === color) ||
      (kind === 'material' && t.material === material) ||
      (kind === 'brand' && t.brand === brand);
    const labels = new Map<string, 'Exact' | 'Partial' | 'Irrelevant'>();
    const words = new Set(query.toLowerCase().split(/\W+/));
    for (const p of catalog.products) {
      const t = catalog.truth.get(p.id)!;
      if (t.noun === noun) labels.set(p.id, attributeMatches(t) ? 'Exact' : 'Partial');
      else if (
        rng() < 0.02 &&
        p.title
          .toLowerCase()
          .split(/\W+/)
          .some((w) => words.has(w))
      ) {
        labels.set(p.id, 'Irrelevant');
      } else if (p.description.includes(`our ${noun}.`) && rng() < 0.2) labels.set(p.id, 'Irrelevant');
    }
    out.push({ id: q, query, query_class: dept.name, labels });
  }
  return out;
};

const tsvCell = (value: string | number): string => String(value).replace(/[\t\n\r]+/g, ' ');

/** The three WANDS files (tab-separated) for a generated catalogue and query set. */
export const toWandsFiles = (
  catalog: GeneratedCatalog,
  queries: readonly LabelledQuery[],
): { 'product.csv': string; 'query.csv': string; 'label.csv': string } => {
  const product = ['product_id\tproduct_name\tproduct_class\tcategory hierarchy\tproduct_description'];
  for (const p of catalog.products) {
    product.push(
      [p.id, p.title, catalog.truth.get(p.id)!.noun, p.category.replaceAll(' > ', ' / '), p.description]
        .map(tsvCell)
        .join('\t'),
    );
  }
  const query = ['query_id\tquery\tquery_class'];
  const label = ['id\tquery_id\tproduct_id\tlabel'];
  let labelId = 0;
  for (const q of queries) {
    query.push([q.id, q.query, q.query_class].map(tsvCell).join('\t'));
    for (const [productId, grade] of q.labels) label.push([labelId++, q.id, productId, grade].join('\t'));
  }
  return {
    'product.csv': product.join('\n') + '\n',
    'query.csv': query.join('\n') + '\n',
    'label.csv': label.join('\n') + '\n',
  };
};
