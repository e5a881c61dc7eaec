// The fast path of the NF-e detail: the provider's body goes straight to the bytes of `invoice`
// and `protocol`, in one scan, instead of JSON.parse (with the numbers' text kept), the mapping's
// copies and the schema serialiser (37 ms of CPU for a 1 MiB document). The output is what that
// path wrote, byte for byte: groups and fields in the contract's order, numbers and booleans of
// named fields as text, `additional_fields` (document fields no group names, then top-level
// ones) with their JSON types, then `items`. Only the top-level summary fields become values, for
// the same check and summary mapping. A body it does not take (json-bytes.ts says which) gives
// null, and the caller parses it the old way.
import { isUtf8 } from 'node:buffer';
import { ascii, ByteWriter } from '../../lib/byte-writer.ts';
import { FieldLayout } from './field-layout.ts';
import * as scan from './json-bytes.ts';
import { CLOSE_OBJECT, COMMA, OPEN_OBJECT } from './json-chars.ts';
import { SUMMARY_FIELDS } from './provider-fields.ts';
import type { ProviderObject } from './provider-json.ts';
import { assertProviderDocument } from './provider-mapping.ts';
import {
  invoiceHead,
  itemsOut,
  nullValue,
  type OpenInvoice,
  protocolOut,
  transcodeDocument,
  transcodeProtocol,
} from './transcode-document.ts';

export type TranscodedDetail = {
  /** The top-level summary fields as the old parse gave them (objects there are `{}`). */
  summary: ProviderObject;
  /**
   * `,"invoice":…,"protocol":…` from `start` to `end` of `body`, with HEAD_ROOM bytes free before
   * for the fields up to `recipient` and TAIL_ROOM after for `processing`: the answer is written
   * around it, without another copy of the document.
   */
  body: Buffer;
  start: number;
  end: number;
};

const HEAD_ROOM = 1 << 14;
const TAIL_ROOM = 64;

const SUMMARY_NAMES = [...SUMMARY_FIELDS];
const TOP = new FieldLayout({ summary: SUMMARY_NAMES });
const DOCUMENT_ID = SUMMARY_NAMES.indexOf('requisicao_nota_fiscal');
const PROTOCOL_ID = SUMMARY_NAMES.indexOf('protocolo_nota_fiscal');
/** Summary fields the check and the mapping read; the others are dropped, as before. */
const READ = new Set(
  'nome_emitente documento_emitente cnpj_destinatario cpf_destinatario valor_total data_emissao situacao manifestacao_destinatario nfe_completa versao digest_value'
    .split(' ')
    .map((name) => SUMMARY_NAMES.indexOf(name)),
);
const ITEMS_KEY = ascii(',"items":');
const INVOICE_KEY = ascii(',"invoice":');
const PROTOCOL_KEY = ascii(',"protocol":');

// The values of the top-level fields no group names (the scan is synchronous: one at a time).
const topExtras = new ByteWriter(1 << 12);

/** The detail's invoice and protocol from the provider's body, or null when it is not for this path. */
export function transcodeProviderBody(body: Buffer): TranscodedDetail | null {
  // A byte-order mark or bytes that are not UTF-8: the old path decodes them its way.
  if (body[0] === 0xef || !isUtf8(body)) return null;
  scan.beginScan(body);
  try {
    return transcodeTop();
  } catch {
    return null;
  } finally {
    scan.endScan();
  }
}

function transcodeTop(): TranscodedDetail {
  scan.skipSpace();
  if (scan.open(OPEN_OBJECT, CLOSE_OBJECT)) scan.offPath();
  const summary: ProviderObject = {};
  let document: OpenInvoice | null | undefined;
  let protocol = false;
  // Top-level fields that are not summary fields: hash, key start and end, value start and end.
  const tops: number[] = [];
  topExtras.length = 0;
  do {
    scan.readKey();
    scan.rememberKey(0);
    const id = TOP.find();
    if (id === DOCUMENT_ID) {
      document = scan.peek() === OPEN_OBJECT ? transcodeDocument() : nullValue();
      summary.requisicao_nota_fiscal = document && {};
    } else if (id === PROTOCOL_ID) {
      protocol = scan.peek() === OPEN_OBJECT ? transcodeProtocol() : nullValue() !== null;
      summary.protocolo_nota_fiscal = protocol ? {} : null;
    } else if (READ.has(id)) summary[SUMMARY_NAMES[id]] = scan.readScalar();
    else if (id >= 0) scan.skipValue(1);
    else {
      tops.push(scan.keyHash, scan.keyStart, scan.keyEnd, topExtras.length);
      scan.copyValue(topExtras, false, 1);
      tops.push(topExtras.length);
    }
  } while (scan.next(CLOSE_OBJECT));
  scan.skipSpace();
  if (!scan.atEnd()) scan.offPath();
  assertProviderDocument(summary);
  if (document) closeInvoice(document, tops);
  return { summary, ...answer(document, protocol) };
}

/** `,"invoice":…,"protocol":…` in a buffer with room around it (see TranscodedDetail). */
function answer(document: OpenInvoice | null | undefined, protocol: boolean) {
  const items =
    !document || document.items === false ? 0 : ITEMS_KEY.length + (document.items ? itemsOut.length : 4);
  const size =
    INVOICE_KEY.length +
    (document ? invoiceHead.length + items + 1 : 4) +
    PROTOCOL_KEY.length +
    (protocol ? protocolOut.length : 4);
  const out = new ByteWriter(HEAD_ROOM + size + TAIL_ROOM);
  out.length = HEAD_ROOM;
  out.constant(INVOICE_KEY);
  if (!document) out.constant(scan.NULL);
  else {
    out.copy(invoiceHead.bytes, 0, invoiceHead.length);
    if (document.items !== false) {
      out.constant(ITEMS_KEY);
      if (document.items) out.copy(itemsOut.bytes, 0, itemsOut.length);
      else out.constant(scan.NULL);
    }
    out.byte(CLOSE_OBJECT);
  }
  out.constant(PROTOCOL_KEY);
  if (protocol) out.copy(protocolOut.bytes, 0, protocolOut.length);
  else out.constant(scan.NULL);
  return { body: out.bytes, start: HEAD_ROOM, end: out.length };
}

/** Appends the top-level extras the document does not have, and closes the invoice. */
function closeInvoice({ keys }: OpenInvoice, tops: number[]): void {
  const head = invoiceHead;
  const source = scan.source();
  let comma = head.bytes[head.length - 1] !== OPEN_OBJECT;
  outer: for (let t = 0; t < tops.length; t += 5) {
    for (let k = 0; k < keys.length; k += 3) {
      if (keys[k] === tops[t] && sameBytes(source, keys[k + 1], keys[k + 2], tops[t + 1], tops[t + 2]))
        continue outer;
    }
    if (comma) head.byte(COMMA);
    comma = true;
    head.copy(source, tops[t + 1] - 1, tops[t + 2] + 1);
    head.byte(0x3a);
    head.copy(topExtras.bytes, tops[t + 3], tops[t + 4]);
  }
  head.byte(CLOSE_OBJECT);
}

function sameBytes(source: Uint8Array, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (let i = 0; i < aEnd - a; i++) if (source[a + i] !== source[b + i]) return false;
  return true;
}
