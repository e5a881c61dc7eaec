// What the importer knows about each collection of the file: its field spec, the ids it
// writes, the ids it references, checks within a record, checks against the database, and
// how it is written.
import type { Transaction } from 'kysely';
import type { Database } from '../db/types.ts';
import type { Issues } from './issues.ts';
import type { Spec } from './record.ts';

export type Row = Record<string, any>;

/** A checked record and where it is in the file (`products[3]`). */
export type Rec = { at: string; row: Row };

/** Tables whose rows belong to one restaurant: references into them must stay in it. */
export type ScopedTable =
  | 'brands'
  | 'product_categories'
  | 'complement_categories'
  | 'complement_options'
  | 'products'
  | 'suppliers'
  | 'bank_accounts'
  | 'payment_methods'
  | 'cost_centres'
  | 'cash_flows'
  | 'nfe_received';

export type IdTable = ScopedTable | 'restaurants' | 'api_keys' | 'oauth_clients';

/** An id the record writes (`path` from the record, e.g. `.options[2].id`). */
export type OwnId = { path: string; table: IdTable; id: number | string };

/** An id the record points at; it must exist in the file or the database, in `restaurantId`. */
export type Ref = { path: string; table: ScopedTable | 'restaurants'; id: number };

export type WriteContext = {
  tx: Transaction<Database>;
  fiscalTokenKey?: string;
  /** Called with the number of rows just written, for the progress display. */
  advance: (rows: number) => void;
  /** Ids of the file's records that the write added or changed, by collection (those that say). */
  changed?: Map<string, Set<number>>;
  /**
   * Stored restaurants the file changes, gathered by the restaurants' write: written last, once the
   * import locked the restaurants it updates (import.ts), so it does not hold their rows meanwhile.
   */
  restaurants?: Row[];
  /** Ids of the restaurants whose menu answer the write changed (src/import/events.ts). */
  menus?: Set<number>;
};

export type Collection = {
  name: string;
  spec: Spec;
  ids: (row: Row) => OwnId[];
  refs?: (row: Row) => Ref[];
  check?: (row: Row, at: string, issues: Issues) => void;
  /** Checks that need the database (run inside the import transaction). */
  verify?: (tx: Transaction<Database>, records: Rec[], issues: Issues) => Promise<void>;
  /** Rows it writes, for the progress display. */
  size: (row: Row) => number;
  write: (ctx: WriteContext, records: Rec[]) => Promise<Record<string, number>>;
};

export const LABELS: Record<IdTable, string> = {
  restaurants: 'restaurant',
  brands: 'brand',
  product_categories: 'category',
  complement_categories: 'add-on group',
  complement_options: 'add-on option',
  products: 'product',
  suppliers: 'supplier',
  bank_accounts: 'bank account',
  payment_methods: 'payment method',
  cost_centres: 'cost centre',
  cash_flows: 'cash flow',
  nfe_received: 'NF-e',
  api_keys: 'API key',
  oauth_clients: 'OAuth client',
};
