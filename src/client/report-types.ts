// Wire types of the cash-flow and received NF-e routes (contract 2.6-2.8, 4.9-4.11).

export type CashFlowsQuery = {
  /** YYYY-MM-DD, first day. */
  start_date: string;
  /** YYYY-MM-DD, last day (included); at most 92 calendar days after start_date. */
  end_date: string;
  date_type?: 'due_date' | 'competence_date';
  /** Main entries to skip; pages are 100 main entries. */
  offset?: number;
  paid?: boolean;
  is_earning?: boolean;
  provider_id?: number;
  bank_account_id?: number;
  payment_method_id?: number;
  category_subcategory_id?: number;
};

type Named = { id: number; name: string } | null;

export type CashFlowEntryType = 'standalone' | 'invoice' | 'invoice_item' | 'title' | 'title_entry';

export type CashFlowItem = {
  id: number;
  entry_type: CashFlowEntryType;
  description: string | null;
  value: string;
  due_date: string;
  competence_date: string | null;
  paid: boolean;
  paid_at: string | null;
  is_earning: boolean;
  provider: Named;
  bank_account: Named;
  payment_method: Named;
  category_subcategory: Named;
  counts_for_result: boolean;
};

/** A main entry: its value already equals the sum of its `items` (do not add both). */
export type CashFlowEntry = CashFlowItem & { items: CashFlowItem[] };

export type CashFlowsPage = {
  total: number;
  count: number;
  remaining: number;
  limit: number;
  offset: number;
  start_date: string;
  end_date: string;
  date_type: 'due_date' | 'competence_date';
  /** The whole period with its filters, not only this page. */
  totals: {
    total_earnings: string;
    total_earnings_paid: string;
    total_expenses: string;
    total_expenses_paid: string;
  };
  cash_flows: CashFlowEntry[];
};

/** The credential in use (GET /v1/me). */
export type Me = {
  kind: 'api_key' | 'oauth_client' | 'restaurant_session';
  /** The API key's or application's name; a console session's staff email; null for a CLI session. */
  name: string | null;
  environment: 'test' | 'live' | null;
  scopes: string[];
  /** When the access token or session expires (ISO 8601). */
  expires_at: string;
  /** The restaurants it can act for, in id order. */
  restaurants: { id: number; name: string; timezone: string }[];
};

/** A brand of the restaurant (GET /v1/brands): its id is the `brand_id` of the NF-e list. */
export type Brand = {
  id: number;
  name: string;
  fantasy_name: string | null;
  /** Text, leading zeros kept. */
  cnpj: string | null;
  /** The brand the NF-e list uses without brand_id. */
  is_default: boolean;
  /** Whether the brand has a fiscal provider credential (the NF-e detail needs one). */
  fiscal_configured: boolean;
};

export type NfeListQuery = {
  /** ISO 8601 date-time with seconds; `Z` or an explicit offset preferred. */
  start_date: string;
  end_date: string;
  /** true: manifestation null, ciencia or desconhecimento; false or absent: only confirmacao. */
  pendente?: boolean;
  brand_id?: number;
};

type Text = string | null;

export type ReceivedNfe = {
  id: number;
  restaurant_id: number;
  brand_id: number | null;
  brand: { id: number; name: string; fantasy_name: Text; cnpj: Text } | null;
  identification: { access_key: string; number: Text; series: Text; state: Text; type: Text };
  issuer: { name: string; document: string };
  amounts: { total: string };
  status: { situation: string; complete: boolean };
  manifestation: { type: Text; manifested_at: Text };
  correction: { number: number | null; text: Text; issued_at: Text };
  cancellation: { canceled_at: Text; reason: Text; locally_canceled_at: Text };
  references: { return_reference: Text; reference: Text; url: Text; provider_id: number | null };
  fiscal: { version: number; digest: Text; sped: unknown };
  timestamps: { issued_at: string; processing_at: Text; created_at: Text; updated_at: Text };
};

/** Provider fields keep the provider's text; absent when not informed. */
type ProviderGroup = Record<string, unknown>;

export type ReceivedNfeDetail = ReceivedNfe & {
  recipient: { cnpj: Text; cpf: Text };
  /** null when the provider holds only the summary. */
  invoice: {
    /** identification, issuer, recipient, taxes, totals, transport, billing, additional... */
    [group: string]: unknown;
    items?: { [group: string]: unknown; additional_fields: ProviderGroup }[] | null;
    additional_fields: ProviderGroup;
  } | null;
  protocol: ProviderGroup | null;
  processing: { return_in_progress: boolean };
};
