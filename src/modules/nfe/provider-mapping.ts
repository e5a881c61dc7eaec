// Maps the provider's flat NF-e document (fiscal-provider.md) into the contract's detail (2.7, 2.8).
// Named fields keep the provider's text (numbers become their source text); a field no group
// names goes, with its JSON type, into `additional_fields`, so nothing is dropped silently.

import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS, SUMMARY_FIELDS } from './provider-fields.ts';
import {
  isProviderObject,
  type ProviderObject,
  type ProviderValue,
  providerText,
  RawNumber,
  setOwn,
  toJsonValues,
  toTextValues,
} from './provider-json.ts';

export type ProviderSummary = {
  issuedAt: string;
  issuerName: string;
  issuerDocument: string;
  total: string;
  situation: string;
  manifestationType: string | null;
  complete: boolean;
  version: number;
  digest: string | null;
};
export type ProviderRecipient = { cnpj: string | null; cpf: string | null };
export type InvoiceGroup = Record<string, unknown>;
export type ProviderDetail = {
  summary: ProviderSummary;
  recipient: ProviderRecipient;
  invoice: InvoiceGroup | null;
  protocol: InvoiceGroup | null;
};

/** The provider body is not the expected document; the caller answers 502 fiscal_upstream_error. */
export class ProviderDocumentError extends Error {}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const isText = (v: ProviderValue | undefined) => typeof v === 'string' || v instanceof RawNumber;
const isOptionalObject = (v: ProviderValue | undefined) =>
  v === undefined || v === null || isProviderObject(v);

/** Throws ProviderDocumentError (with the reason, for the log) unless the body is a usable document. */
export function assertProviderDocument(value: ProviderValue): asserts value is ProviderObject {
  const fail = (reason: string) => {
    throw new ProviderDocumentError(reason);
  };
  if (!isProviderObject(value)) return fail('body is not a JSON object');
  for (const field of ['nome_emitente', 'data_emissao', 'situacao']) {
    if (typeof value[field] !== 'string') fail(`${field} is not a string`);
  }
  if (!isText(value.documento_emitente)) fail('documento_emitente is not text');
  const total = value.valor_total;
  if (!isText(total) || !DECIMAL.test(providerText(total) ?? '')) fail('valor_total is not a decimal');
  if (typeof value.nfe_completa !== 'boolean') fail('nfe_completa is not a boolean');
  if (!isText(value.versao) || !/^\d{1,9}$/.test(providerText(value.versao) ?? ''))
    fail('versao is not an integer');
  for (const field of [
    'digest_value',
    'manifestacao_destinatario',
    'cnpj_destinatario',
    'cpf_destinatario',
  ]) {
    const v = value[field];
    if (v !== undefined && v !== null && !isText(v)) fail(`${field} is not text or null`);
  }
  if (!isOptionalObject(value.protocolo_nota_fiscal)) fail('protocolo_nota_fiscal is not an object');
  const document = value.requisicao_nota_fiscal;
  if (!isOptionalObject(document)) fail('requisicao_nota_fiscal is not an object');
  const items = isProviderObject(document) ? itemsOf(document).items : undefined;
  if (items !== undefined && items !== null && (!Array.isArray(items) || !items.every(isProviderObject))) {
    fail('itens is not an array of objects');
  }
}

/** The common fields (2.7) the detail takes from the provider instead of the local snapshot. */
export function mapProviderSummary(doc: ProviderObject): ProviderSummary {
  const manifestation = doc.manifestacao_destinatario ?? null;
  return {
    issuedAt: doc.data_emissao as string,
    issuerName: doc.nome_emitente as string,
    issuerDocument: providerText(doc.documento_emitente) as string,
    total: providerText(doc.valor_total) as string,
    situation: doc.situacao as string,
    // "nulo" is how the provider writes "no manifestation"; nao_realizada is a real event (210240).
    manifestationType: manifestation === 'nulo' ? null : providerText(manifestation),
    complete: doc.nfe_completa as boolean,
    version: Number(providerText(doc.versao)),
    digest: providerText(doc.digest_value ?? null),
  };
}

export function mapProviderRecipient(doc: ProviderObject): ProviderRecipient {
  return {
    cnpj: providerText(doc.cnpj_destinatario ?? null),
    cpf: providerText(doc.cpf_destinatario ?? null),
  };
}

/** The whole detail; call after assertProviderDocument. */
export function mapProviderDetail(doc: ProviderObject): ProviderDetail {
  const document = doc.requisicao_nota_fiscal;
  const protocol = doc.protocolo_nota_fiscal;
  return {
    summary: mapProviderSummary(doc),
    recipient: mapProviderRecipient(doc),
    invoice: isProviderObject(document) ? mapInvoice(doc, document) : null,
    protocol: isProviderObject(protocol) ? pick(protocol, PROTOCOL_FIELDS) : null,
  };
}

function mapInvoice(doc: ProviderObject, document: ProviderObject): InvoiceGroup {
  const { key, items } = itemsOf(document);
  const invoice = grouped(document, DOCUMENT_GROUPS);
  if (items !== undefined) {
    invoice.items = Array.isArray(items) ? items.map((item) => mapItem(item as ProviderObject)) : items;
  }
  const extra = additionalFields(document, DOCUMENT_GROUPS, key);
  for (const [name, value] of Object.entries(doc)) {
    if (!SUMMARY_FIELDS.has(name) && !Object.hasOwn(extra, name)) setOwn(extra, name, toJsonValues(value));
  }
  invoice.additional_fields = extra;
  return invoice;
}

function mapItem(item: ProviderObject): InvoiceGroup {
  const mapped = grouped(item, ITEM_GROUPS);
  mapped.additional_fields = additionalFields(item, ITEM_GROUPS);
  return mapped;
}

/** Items are in `itens` (documented); `items` is the fallback and otherwise an unknown field. */
function itemsOf(document: ProviderObject): { key?: string; items?: ProviderValue } {
  if (Object.hasOwn(document, 'itens')) return { key: 'itens', items: document.itens };
  if (Object.hasOwn(document, 'items')) return { key: 'items', items: document.items };
  return {};
}

function grouped(source: ProviderObject, groups: Record<string, string[]>): InvoiceGroup {
  const target: InvoiceGroup = {};
  for (const [group, fields] of Object.entries(groups)) target[group] = pick(source, fields);
  return target;
}

/** Absent stays absent, null stays null, arrays keep their elements (numbers as text). */
function pick(source: ProviderObject, fields: string[]): InvoiceGroup {
  const target: InvoiceGroup = {};
  for (const field of fields) {
    if (!Object.hasOwn(source, field)) continue;
    target[field] = field === 'formas_pagamento' ? payments(source[field]) : toTextValues(source[field]);
  }
  return target;
}

/** formas_pagamento[].tipo_integracao is the one named field the contract keeps as JSON. */
function payments(value: ProviderValue): unknown {
  if (!Array.isArray(value)) return toTextValues(value);
  return value.map((payment) => {
    if (!isProviderObject(payment) || !Object.hasOwn(payment, 'tipo_integracao'))
      return toTextValues(payment);
    const { tipo_integracao, ...rest } = payment;
    return { ...(toTextValues(rest) as ProviderObject), tipo_integracao: toJsonValues(tipo_integracao) };
  });
}

/** The names a group list takes, made once per list (not once per item of a long invoice). */
const namedSets = new WeakMap<Record<string, string[]>, Set<string>>();

function namedFields(groups: Record<string, string[]>): Set<string> {
  let named = namedSets.get(groups);
  if (!named) {
    named = new Set(Object.values(groups).flat());
    namedSets.set(groups, named);
  }
  return named;
}

function additionalFields(source: ProviderObject, groups: Record<string, string[]>, itemsKey?: string) {
  const named = namedFields(groups);
  const extra: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(source)) {
    if (!named.has(name) && name !== itemsKey) setOwn(extra, name, toJsonValues(value));
  }
  return extra;
}
