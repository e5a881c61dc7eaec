// Table types for Kysely. snake_case as in SQL; money is a numeric string ("42.90"),
// dates are 'YYYY-MM-DD' strings, instants are Date.
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { FiscalValues } from './fiscal-columns.ts';

type MoneyIn = ColumnType<string, string | number, string | number>;
type NullableMoneyIn = ColumnType<string | null, string | number | null | undefined, string | number | null>;
type Instant = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableInstant = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string | undefined, string>;
export type Schedule = { weekday: number; start: string; end: string };

export interface RestaurantsTable {
  id: Generated<number>;
  name: string;
  timezone: Generated<string>;
  accepts_scheduling: Generated<boolean>;
  created_at: Generated<Date>;
  /** Moved by a trigger on every catalog write (migration 0003); never written by the app. */
  catalog_version: Generated<number>;
  /** Changed by triggers on every write to cash flows or the names they show (migration 0009);
   * never written by the app. */
  cash_flow_version: Generated<number>;
  /** Changed by triggers on every write to received NF-e or brands (migration 0010); never written by the app. */
  nfe_version: Generated<number>;
  /** Changed by triggers on every write to events (migration 0015); never written by the app. */
  events_version: Generated<number>;
}

export interface BrandsTable {
  id: Generated<number>;
  restaurant_id: number;
  name: string;
  fantasy_name: string | null;
  cnpj: string | null;
  is_default: Generated<boolean>;
  fiscal_token_encrypted: string | null;
  deleted_at: NullableInstant;
}

export interface ProductCategoriesTable {
  id: Generated<number>;
  restaurant_id: number;
  brand_id: number | null;
  name: string;
  position: Generated<number>;
  available: Generated<boolean>;
  kind: Generated<'regular' | 'packaging' | 'marketplace_mirror'>;
  schedules: Json<Schedule[]>;
  removed_at: NullableInstant;
}

export interface ComplementCategoriesTable {
  id: Generated<number>;
  restaurant_id: number;
  name: string;
  min: Generated<number>;
  max: Generated<number>;
  removed_at: NullableInstant;
}

export interface ComplementOptionsTable {
  id: Generated<number>;
  restaurant_id: number;
  complement_category_id: number;
  name: string;
  price: MoneyIn;
  delivery_price: NullableMoneyIn;
  available: Generated<boolean>;
  position: Generated<number>;
  removed_at: NullableInstant;
}

export interface ProductsTable extends FiscalValues {
  id: Generated<number>;
  restaurant_id: number;
  product_category_id: number;
  brand_id: number | null;
  position: Generated<number>;
  name: string;
  description: string | null;
  price: MoneyIn;
  price_promotion: NullableMoneyIn;
  delivery_price: NullableMoneyIn;
  delivery_price_promotion: NullableMoneyIn;
  available: Generated<boolean>;
  available_in_delivery: Generated<boolean>;
  sold_off: Generated<boolean>;
  use_weight: Generated<boolean>;
  has_starting_price: Generated<boolean>;
  charge_service_tax: Generated<boolean>;
  is_combo: Generated<boolean>;
  combo_min_items: number | null;
  schedules: Json<Schedule[]>;
  fiscal_group_id: number | null;
  cost: NullableMoneyIn;
  created_at: Instant;
  updated_at: Instant;
  removed_at: NullableInstant;
}

export interface ProductComplementCategoriesTable {
  restaurant_id: number;
  product_id: number;
  complement_category_id: number;
  position: Generated<number>;
}

export interface ComboItemsTable {
  restaurant_id: number;
  combo_product_id: number;
  item_product_id: number;
  position: Generated<number>;
}

export interface ProductChangesTable {
  id: Generated<string>;
  restaurant_id: number;
  product_id: number;
  operation: 'create' | 'edit' | 'bulk' | 'availability';
  actor: Json<Record<string, unknown>>;
  changes: Json<{ field: string; from: unknown; to: unknown }[]>;
  created_at: Instant;
}

export interface SuppliersTable {
  id: Generated<number>;
  restaurant_id: number;
  name: string;
  document: string | null;
  active: Generated<boolean>;
  deleted_at: NullableInstant;
}

export interface NamedRestaurantTable {
  id: Generated<number>;
  restaurant_id: number;
  name: string;
}

export interface CashFlowsTable {
  id: Generated<number>;
  restaurant_id: number;
  parent_id: number | null;
  entry_type: 'standalone' | 'invoice' | 'invoice_item' | 'title' | 'title_entry';
  description: string | null;
  value: MoneyIn;
  due_date: string;
  competence_date: string | null;
  effective_competence_date: ColumnType<string, never, never>;
  paid: Generated<boolean>;
  paid_at: NullableInstant;
  is_earning: boolean;
  provider_id: number | null;
  bank_account_id: number | null;
  payment_method_id: number | null;
  category_subcategory_id: number | null;
  counts_for_result: Generated<boolean>;
  deleted_at: NullableInstant;
  created_at: Generated<Date>;
}

export interface NfeReceivedTable {
  id: Generated<number>;
  restaurant_id: number;
  brand_id: number | null;
  access_key: string;
  series: string | null;
  state: string | null;
  type: string | null;
  issuer_name: string;
  issuer_document: string;
  total: MoneyIn;
  situation: string;
  complete: Generated<boolean>;
  manifestation_type: string | null;
  manifested_at: NullableInstant;
  correction_number: number | null;
  correction_text: string | null;
  correction_issued_at: NullableInstant;
  canceled_at: NullableInstant;
  cancellation_reason: string | null;
  locally_canceled_at: NullableInstant;
  return_reference: string | null;
  reference: string | null;
  url: string | null;
  provider_id: number | null;
  version: Generated<number>;
  digest: string | null;
  sped: Json<unknown> | null;
  is_stock_transfer: Generated<boolean>;
  issued_at: Instant;
  processing_at: NullableInstant;
  created_at: Instant;
  updated_at: Instant;
}

export interface ApiKeysTable {
  id: Generated<number>;
  name: string;
  prefix: string;
  key_hash: string;
  environment: 'live' | 'test';
  scopes: string[];
  created_at: Generated<Date>;
  last_used_at: NullableInstant;
  expires_at: NullableInstant;
  revoked_at: NullableInstant;
}

export interface ApiKeyRestaurantsTable {
  api_key_id: number;
  restaurant_id: number;
}

export interface OauthClientsTable {
  id: Generated<number>;
  client_id: string;
  client_secret_hash: string | null;
  name: string;
  scopes: string[];
  redirect_uris: string[];
  grant_types: string[];
  created_at: Generated<Date>;
  revoked_at: NullableInstant;
}

export interface OauthClientRestaurantsTable {
  oauth_client_id: number;
  restaurant_id: number;
}

export interface AccessTokensTable {
  id: Generated<string>;
  token_hash: string;
  api_key_id: number | null;
  oauth_client_id: number | null;
  family_id: string | number | null;
  restaurant_ids: number[];
  scopes: string[];
  created_at: Generated<Date>;
  expires_at: Instant;
  revoked_at: NullableInstant;
}

export interface RefreshTokenFamiliesTable {
  id: Generated<number>;
  api_key_id: number | null;
  oauth_client_id: number | null;
  restaurant_ids: number[];
  scopes: string[];
  created_at: Instant;
  absolute_expires_at: Instant;
  revoked_at: NullableInstant;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  family_id: number;
  token_hash: string;
  expires_at: Instant;
  consumed_at: NullableInstant;
  created_at: Instant;
}

export interface AuthorizationCodesTable {
  id: Generated<number>;
  code_hash: string;
  oauth_client_id: number;
  restaurant_id: number;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  created_at: Instant;
  expires_at: Instant;
  consumed_at: NullableInstant;
  family_id: number | null;
}

export interface StaffUsersTable {
  id: Generated<number>;
  email: string;
  /** `scrypt$N$r$p$salt$hash` (src/modules/console/passwords.ts). */
  password_hash: string;
  must_change_password: Generated<boolean>;
  created_at: Generated<Date>;
  /** Set by `comanda user disable`: the account may no longer sign in. */
  disabled_at: NullableInstant;
}

export interface StaffUserRestaurantsTable {
  staff_user_id: number;
  restaurant_id: number;
}

export interface ConsoleSessionsTable {
  /** The `jti` of the restaurant session in the console cookie. */
  id: string;
  staff_user_id: number;
  restaurant_id: number;
  created_at: Instant;
  expires_at: Instant;
  ended_at: NullableInstant;
}

export interface AppConsentsTable {
  oauth_client_id: number;
  restaurant_id: number;
  /** Every scope approved for the restaurant since the application was installed. */
  scopes: string[];
  staff_user_id: number | null;
  consented_at: Instant;
}

export interface EventsTable {
  seq: Generated<number>;
  /** `evt_` and 32 hex digits, the event's public id. */
  id: Generated<string>;
  restaurant_id: number;
  type: string;
  data: Json<unknown>;
  created_at: Generated<Date>;
  /** The writing transaction (xid8, read as text); the feed orders by it. */
  xid: Generated<string>;
}

/** The last event of a restaurant and type that the retention purge deleted (migration 0018). */
export interface EventPurgesTable {
  restaurant_id: number;
  type: string;
  xid: string;
  seq: number;
}

/** Where a restaurant's menu schedule clock stands for the boundary job (migration 0023). */
export interface MenuBoundaryMarksTable {
  restaurant_id: number;
  catalog_version: number;
  timezone: string;
  checked_at: Date | null;
  next_at: Date | null;
}

/** A replaced webhook secret, encrypted as secret_encrypted is, signing until expires_at (an ISO instant). */
export type PreviousSecret = { secret_encrypted: string; expires_at: string };

export interface WebhookEndpointsTable {
  id: Generated<number>;
  restaurant_id: number;
  url: string;
  events: string[];
  description: Generated<string>;
  /** encryptSecret (src/lib/encryption.ts) of the `whsec_` secret. */
  secret_encrypted: string;
  /** The newest of previous_secrets, for instances of the release before 0019 (migration 0019). */
  previous_secret_encrypted: string | null;
  /** The secrets replaced in the last 24 hours, newest first, a few at most (migration 0019). */
  previous_secrets: Json<PreviousSecret[]>;
  /** The newest rotation's: the latest expiry among previous_secrets. */
  previous_secret_expires_at: NullableInstant;
  failing_since: NullableInstant;
  disabled_at: NullableInstant;
  disabled_reason: string | null;
  created_at: Generated<Date>;
  /** The creating (or enabling again) transaction: the endpoint is handed the events of later ones (migration 0017). */
  created_xid: Generated<string>;
  /**
   * The snapshot of the creating (or enabling again) statement: the endpoint is handed the events
   * of the transactions it does not see, those that commit after it (migration 0020).
   */
  created_snapshot: Generated<string>;
  /**
   * The credential that created (or enabled again) the endpoint, at most one of them; neither for
   * a restaurant session's. Losing the restaurant, it disables the endpoint (migration 0021); so
   * does losing the read scope of one of its types (0022).
   */
  api_key_id: number | null;
  oauth_client_id: number | null;
}

/** A transaction that wrote events of a restaurant with an endpoint, not yet handed out (migration 0017). */
export interface WebhookFanoutTable {
  restaurant_id: number;
  xid: string;
}

/**
 * A read scope that shows an event type (any of a type's does), written from event-scopes.ts by
 * migrate.ts for migration 0022's triggers; `position`: its place in the type's list.
 */
export interface EventTypeScopesTable {
  type: string;
  scope: string;
  position: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  payload: Json<unknown>;
  status: Generated<'pending' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  created_at: Generated<Date>;
  completed_at: NullableInstant;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: Instant;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

/** Named values of the installation: `fingerprint:<VARIABLE>` of each server secret. */
export interface SettingsTable {
  name: string;
  value: string;
  updated_at: Generated<Date>;
}

export interface Database {
  restaurants: RestaurantsTable;
  brands: BrandsTable;
  product_categories: ProductCategoriesTable;
  complement_categories: ComplementCategoriesTable;
  complement_options: ComplementOptionsTable;
  products: ProductsTable;
  product_complement_categories: ProductComplementCategoriesTable;
  combo_items: ComboItemsTable;
  product_changes: ProductChangesTable;
  suppliers: SuppliersTable;
  bank_accounts: NamedRestaurantTable;
  payment_methods: NamedRestaurantTable;
  cost_centres: NamedRestaurantTable;
  cash_flows: CashFlowsTable;
  nfe_received: NfeReceivedTable;
  api_keys: ApiKeysTable;
  api_key_restaurants: ApiKeyRestaurantsTable;
  oauth_clients: OauthClientsTable;
  oauth_client_restaurants: OauthClientRestaurantsTable;
  access_tokens: AccessTokensTable;
  refresh_token_families: RefreshTokenFamiliesTable;
  refresh_tokens: RefreshTokensTable;
  authorization_codes: AuthorizationCodesTable;
  staff_users: StaffUsersTable;
  staff_user_restaurants: StaffUserRestaurantsTable;
  console_sessions: ConsoleSessionsTable;
  app_consents: AppConsentsTable;
  events: EventsTable;
  event_purges: EventPurgesTable;
  menu_boundary_marks: MenuBoundaryMarksTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_fanout: WebhookFanoutTable;
  event_type_scopes: EventTypeScopesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  settings: SettingsTable;
}

/** The query builder over these tables. */
export type Db = Kysely<Database>;
