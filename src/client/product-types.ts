// Wire types of the product and menu routes (contract 2.1-2.4, design menu.md). Written here,
// not imported from the server, because this folder is shipped to integrators on its own.

export type FiscalAttribute =
  | 'ncm'
  | 'cfop'
  | 'csosn'
  | 'cst'
  | 'cest'
  | 'icms_origem'
  | 'aliquota'
  | 'base_calculo'
  | 'pis'
  | 'cofins'
  | 'pis_aliquota'
  | 'cofins_aliquota'
  | 'icms_modalidade_base_calculo'
  | 'icms_aliquota'
  | 'icms_valor'
  | 'cbenef'
  | 'fcp_percentual'
  | 'icms_base_calculo_retido_st'
  | 'icms_aliquota_final'
  | 'icms_valor_retido_st'
  | 'icms_valor_substituto'
  | 'icms_reducao_base_calculo'
  | 'icms_motivo_desoneracao'
  | 'icms_valor_desonerado'
  | 'icms_aliquota_credito_simples'
  | 'icms_valor_credito_simples'
  | 'ibs_cbs_situacao_tributaria'
  | 'ibs_cbs_classificacao_tributaria'
  | 'icms_modalidade_base_calculo_st'
  | 'icms_margem_valor_adicionado_st'
  | 'icms_reducao_base_calculo_st'
  | 'icms_aliquota_st';

/** Every attribute is text or null (null: not registered; never a zero rate). */
export type Fiscal = Record<FiscalAttribute, string | null>;

/** Prices are JSON numbers with at most two decimals; responses return them as strings. */
export type ProductCreate = {
  name: string;
  product_category_id: number;
  price: number;
  description?: string | null;
  price_promotion?: number | null;
  delivery_price?: number | null;
  delivery_price_promotion?: number | null;
  available?: boolean;
  available_in_delivery?: boolean;
  sold_off?: boolean;
  use_weight?: boolean;
  has_starting_price?: boolean;
  charge_service_tax?: boolean;
};

/** Partial edit: omitted fields keep their value; null clears only the nullable ones. */
export type ProductEdit = Partial<Omit<ProductCreate, 'description'>> & {
  description?: string | null;
  /** The `updated_at` read before the change; a different current version answers 409. */
  expected_updated_at?: string;
  /** Partial: omitted attributes stay, null clears one. */
  fiscal_info?: Partial<Fiscal>;
};

export type ProductBulkEdit = ProductEdit & { id: number };

export type ProductAvailability = { available?: boolean; available_in_delivery?: boolean };

export type ListedProduct = {
  id: number;
  restaurant_id: number;
  product_category_id: number;
  name: string;
  description: string | null;
  price: string;
  price_promotion: string | null;
  delivery_price: string | null;
  delivery_price_promotion: string | null;
  available: boolean;
  available_in_delivery: boolean;
  sold_off: boolean;
  use_weight: boolean;
  has_starting_price: boolean;
  charge_service_tax: boolean;
  created_at: string;
  /** The version to send back as `expected_updated_at`. */
  updated_at: string;
  fiscal: Fiscal;
};

/** Detail and write responses also carry `fiscal_info`, an alias of `fiscal`. */
export type Product = ListedProduct & { fiscal_info: Fiscal };

export type CatalogCategory = {
  id: number;
  name: string;
  position: number;
  available: boolean;
  products: ListedProduct[];
};

export type MenuChannel = 'in_store' | 'delivery';

export type MenuQuery = {
  channel?: MenuChannel;
  only_available?: boolean;
  category_id?: number;
  search?: string;
  include_fiscal_info?: boolean;
  /** ISO 8601 instant at which schedules are evaluated (default: now). */
  at?: string;
};

export type MenuUnavailableReason =
  | 'sold_out'
  | 'channel_unavailable'
  | 'category_unavailable'
  | 'outside_schedule'
  | 'required_choice_unavailable'
  | 'combo_minimum_unmet';

/** The product's own fields are ListedProduct's; pricing and availability are resolved per channel. */
export type MenuProduct = Pick<
  ListedProduct,
  | 'id'
  | 'product_category_id'
  | 'name'
  | 'description'
  | 'use_weight'
  | 'has_starting_price'
  | 'charge_service_tax'
> & {
  position: number;
  pricing: Pick<
    ListedProduct,
    'price' | 'price_promotion' | 'delivery_price' | 'delivery_price_promotion'
  > & {
    mode: 'fixed' | 'starting_at' | 'per_kg';
    is_combo: boolean;
    resolved: {
      base: string;
      source: 'price_promotion' | 'price' | 'delivery_price_promotion' | 'delivery_price';
      minimum: string;
    };
  };
  availability: {
    available: boolean;
    available_in_delivery: boolean;
    sold_out: boolean;
    resolved: { available: boolean; reason: MenuUnavailableReason | null; schedulable: boolean };
  };
  complement_categories: {
    id: number;
    name: string;
    min: number;
    max: number;
    required: boolean;
    options: { id: number; name: string; price: string; available: boolean }[];
  }[];
  /** Only with `include_fiscal_info: true`. */
  fiscal?: Fiscal;
};

export type Menu = {
  restaurant_id: number;
  channel: MenuChannel;
  evaluated_at: string;
  categories: { id: number; name: string; position: number; available: boolean; products: MenuProduct[] }[];
};
