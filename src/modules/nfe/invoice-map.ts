// The full document (`requisicao_nota_fiscal`) and the protocol, grouped as contract 2.8 groups
// them: one mapper per group, each field in the provider's text (providerText). Fields no group
// names keep their JSON types in `additional_fields`; nothing the provider sends is dropped.
import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS, SUMMARY_FIELDS } from './provider-fields.ts';
import {
  isProviderObject,
  type ProviderObject,
  type ProviderValue,
  providerText,
  setOwn,
} from './provider-json.ts';

type Group = (source: ProviderObject) => ProviderObject;

/** "Fields not informed are absent; nulls and empty arrays are preserved": the named fields present, as text. */
export const namedFields =
  (fields: string[]): Group =>
  (source) => {
    const group: ProviderObject = {};
    for (const field of fields) if (Object.hasOwn(source, field)) group[field] = providerText(source[field]);
    return group;
  };

/** invoice.billing: `formas_pagamento[].tipo_integracao` is the one named member kept as JSON (written last). */
export function billing(document: ProviderObject): ProviderObject {
  const group = namedFields(DOCUMENT_GROUPS.billing)(document);
  const payments = document.formas_pagamento;
  if (Array.isArray(payments)) group.formas_pagamento = payments.map(paymentWithIntegrationType);
  return group;
}

function paymentWithIntegrationType(payment: ProviderValue): ProviderValue {
  if (!isProviderObject(payment) || !Object.hasOwn(payment, 'tipo_integracao')) return providerText(payment);
  const { tipo_integracao, ...rest } = payment;
  return { ...(providerText(rest) as ProviderObject), tipo_integracao };
}

/** One mapper per group, in the contract's order: its named fields (namedFields). */
const mappers = (groups: Record<string, string[]>): Record<string, Group> =>
  Object.fromEntries(Object.entries(groups).map(([name, fields]) => [name, namedFields(fields)]));

/** billing, the one group with a rule of its own, keeps its place in the order. */
const DOCUMENT = { ...mappers(DOCUMENT_GROUPS), billing };
const ITEM = mappers(ITEM_GROUPS);

const DOCUMENT_NAMES = new Set(Object.values(DOCUMENT_GROUPS).flat());
const ITEM_NAMES = new Set(Object.values(ITEM_GROUPS).flat());

/** "Future fiscal fields go to additional_fields (original names and JSON types)". */
export function additionalFields(
  source: ProviderObject,
  named: Set<string>,
  except?: string,
): ProviderObject {
  const extra: ProviderObject = {};
  for (const [name, value] of Object.entries(source)) {
    if (!named.has(name) && name !== except) setOwn(extra, name, value);
  }
  return extra;
}

/** Items are in `itens` (documented); `items` is the fallback, and otherwise an unknown field. */
export function itemsKey(document: ProviderObject): string | undefined {
  if (Object.hasOwn(document, 'itens')) return 'itens';
  if (Object.hasOwn(document, 'items')) return 'items';
  return undefined;
}

function grouped(source: ProviderObject, groups: Record<string, Group>): ProviderObject {
  const target: ProviderObject = {};
  for (const [name, map] of Object.entries(groups)) target[name] = map(source);
  return target;
}

function mapItem(item: ProviderObject): ProviderObject {
  const mapped = grouped(item, ITEM);
  mapped.additional_fields = additionalFields(item, ITEM_NAMES);
  return mapped;
}

/**
 * invoice: the document's groups, its additional fields (then the top-level fields that are not
 * summary fields and that the document does not have), then `items` when the provider sent them.
 */
export function mapInvoice(top: ProviderObject, document: ProviderObject): ProviderObject {
  const key = itemsKey(document);
  const invoice = grouped(document, DOCUMENT);
  const extra = additionalFields(document, DOCUMENT_NAMES, key);
  for (const [name, value] of Object.entries(top)) {
    if (!SUMMARY_FIELDS.has(name) && !Object.hasOwn(extra, name)) setOwn(extra, name, value);
  }
  invoice.additional_fields = extra;
  if (key !== undefined) {
    const items = document[key];
    invoice.items = Array.isArray(items) ? items.map((item) => mapItem(item as ProviderObject)) : items;
  }
  return invoice;
}

/** protocol: its nine named fields as text; others are not shown. */
export const mapProtocol = namedFields(PROTOCOL_FIELDS);
