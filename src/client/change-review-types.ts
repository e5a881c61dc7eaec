// Wire types of change review: the dry run of an edit (`dryRun: true`) and the product history.
import type { Product } from './product-types.ts';

/** One changed field; money as a two-decimal string, fiscal attributes as `fiscal_info.<attribute>`. */
export type ProductChange = {
  field: string;
  from: string | number | boolean | null;
  to: string | number | boolean | null;
};

export type ProductReview = {
  id: number;
  /** The stored product. */
  current: Product;
  /** The product as the write would leave it; its `updated_at` is still the current version. */
  proposed: Product;
  /** Only the fields that would really change (empty: the write would change nothing). */
  changes: ProductChange[];
  /** Send it with the real write so that it applies only to what was reviewed (else 409). */
  expected_updated_at: string;
};

/** The answer of an edit sent with `dryRun: true`: nothing was written. */
export type ProductDryRun = { dry_run: true; products: ProductReview[] };

export type HistoryCredential =
  | { kind: 'api_key'; api_key_id: number; api_key_name: string }
  | { kind: 'oauth_client'; client_id: string }
  | { kind: 'restaurant_session' }
  | { kind: 'import' };

export type ProductHistoryEntry = {
  at: string;
  credential: HistoryCredential;
  operation: 'create' | 'edit' | 'bulk' | 'availability';
  changes: ProductChange[];
};

export type ProductHistoryQuery = {
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** 1 to 100, default 50. */
  limit?: number;
};

export type ProductHistoryPage = { items: ProductHistoryEntry[]; next_cursor: string | null };
