// Maps the provider's document (fiscal-provider.md) into the contract's detail (2.7, 2.8): the
// summary fields that replace the local snapshot's, the recipient, the invoice and the protocol.
// mapProviderBody is the whole step from the provider's bytes to the answer's provider parts.
import { itemsKey, mapInvoice, mapProtocol } from './invoice-map.ts';
import {
  isProviderObject,
  isRawNumber,
  type ProviderObject,
  type ProviderValue,
  parseProviderJson,
} from './provider-json.ts';

export type ProviderDetail = ReturnType<typeof mapProviderDetail>;
/**
 * The provider's part of the answer: `invoice` and `protocol` as JSON text (`"invoice":…,"protocol":…`),
 * from a worker also as UTF-8 (`documentBytes`, not enumerable).
 */
export type MappedProviderBody = ReturnType<typeof mapProviderBody> & { readonly documentBytes?: Uint8Array };

/** The provider body is not the expected document; the caller answers 502 fiscal_upstream_error. */
export class ProviderDocumentError extends Error {}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const isText = (v: ProviderValue | undefined) => typeof v === 'string' || isRawNumber(v);
const isOptionalObject = (v: ProviderValue | undefined) =>
  v === undefined || v === null || isProviderObject(v);

/** A summary scalar's text: a string as it is, a number as its source text, null when absent. */
function scalarText(value: ProviderValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  return isRawNumber(value) ? value.rawJSON : (value as string);
}

/**
 * Items of one document: the NF-e layout allows 990, and a 5 MiB body of real items holds about
 * 20,000. Each item is mapped to its groups (about 115 bytes even when empty), so a body of a
 * million empty items would be mapped to over 100 MB.
 */
const MAX_ITEMS = 20_000;

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
  if (!isText(value.valor_total) || !DECIMAL.test(scalarText(value.valor_total) ?? ''))
    fail('valor_total is not a decimal');
  if (typeof value.nfe_completa !== 'boolean') fail('nfe_completa is not a boolean');
  if (!isText(value.versao) || !/^\d{1,9}$/.test(scalarText(value.versao) ?? ''))
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
  for (const holder of [value, value.protocolo_nota_fiscal]) {
    const key = isProviderObject(holder) ? holder.chave_nfe : undefined;
    if (key !== undefined && key !== null && !isText(key)) fail('chave_nfe is not text or null');
  }
  const document = value.requisicao_nota_fiscal;
  if (!isOptionalObject(document)) fail('requisicao_nota_fiscal is not an object');
  if (!isProviderObject(document)) return;
  const key = itemsKey(document);
  const items = key === undefined ? undefined : document[key];
  if (items !== undefined && items !== null && (!Array.isArray(items) || !items.every(isProviderObject))) {
    fail('itens is not an array of objects');
  }
  if (Array.isArray(items) && items.length > MAX_ITEMS) fail(`itens has more than ${MAX_ITEMS} items`);
}

/** "nulo" is how the provider writes "no manifestation"; nao_realizada is a real event (210240). */
export const manifestationType = (value: ProviderValue | undefined) =>
  value === 'nulo' ? null : scalarText(value);

/** The common fields (2.7) the detail takes from the provider instead of the local snapshot. */
function mapProviderSummary(doc: ProviderObject) {
  return {
    issuedAt: doc.data_emissao as string,
    issuerName: doc.nome_emitente as string,
    issuerDocument: scalarText(doc.documento_emitente) as string,
    total: scalarText(doc.valor_total) as string,
    situation: doc.situacao as string,
    manifestationType: manifestationType(doc.manifestacao_destinatario),
    complete: doc.nfe_completa as boolean,
    version: Number(scalarText(doc.versao)),
    digest: scalarText(doc.digest_value),
  };
}

/** recipient (2.8): the provider's text ("" stays ""), null when not informed. */
function mapProviderRecipient(doc: ProviderObject): { cnpj: string | null; cpf: string | null } {
  return { cnpj: scalarText(doc.cnpj_destinatario), cpf: scalarText(doc.cpf_destinatario) };
}

/**
 * The access keys the answer names (its own `chave_nfe` and its protocol's, "NFe" prefix taken
 * off; an empty one names none): the caller checks they are the one it asked for, so that another
 * note's document is never shown as this one's.
 */
function namedKeys(doc: ProviderObject): string[] {
  const protocol = doc.protocolo_nota_fiscal;
  return [doc.chave_nfe, isProviderObject(protocol) ? protocol.chave_nfe : undefined]
    .map((value) => scalarText(value) ?? '')
    .filter((key) => key !== '')
    .map((key) => key.replace(/^NFe/, ''));
}

/** The whole detail; call after assertProviderDocument. A summary-only answer has null invoice and protocol. */
export function mapProviderDetail(doc: ProviderObject) {
  const document = doc.requisicao_nota_fiscal;
  const protocol = doc.protocolo_nota_fiscal;
  return {
    keys: namedKeys(doc),
    summary: mapProviderSummary(doc),
    recipient: mapProviderRecipient(doc),
    invoice: isProviderObject(document) ? mapInvoice(doc, document) : null,
    protocol: isProviderObject(protocol) ? mapProtocol(protocol) : null,
  };
}

/** Parses, checks and maps a provider body; throws SyntaxError or ProviderDocumentError. */
export function mapProviderBody(body: string | Uint8Array) {
  const document = parseProviderJson(body);
  assertProviderDocument(document);
  const { keys, summary, recipient, invoice, protocol } = mapProviderDetail(document);
  const documentJson = `"invoice":${JSON.stringify(invoice)},"protocol":${JSON.stringify(protocol)}`;
  return { keys, summary, recipient, documentJson };
}
