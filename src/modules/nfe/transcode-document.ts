// The document, its items and the protocol for provider-transcode.ts: each object's named fields
// are read into scratch (field-layout.ts) and written group by group when the object ends; the
// fields no group names are copied, in their order, as `additional_fields`.
import { ascii, ByteWriter } from '../../lib/byte-writer.ts';
import { FieldLayout } from './field-layout.ts';
import { ItemShape } from './item-shape.ts';
import * as scan from './json-bytes.ts';
import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT } from './json-chars.ts';
import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS } from './provider-fields.ts';
import { copyPayments } from './transcode-payments.ts';

const DOCUMENT = new FieldLayout(DOCUMENT_GROUPS);
const ITEM = new FieldLayout(ITEM_GROUPS);
const ITEM_DEPTH = 4;
/** The previous item's shape: the items that have it skip the general path (item-shape.ts). */
export const ITEM_SHAPE = new ItemShape(ITEM);
const PROTOCOL = new FieldLayout({ protocol: PROTOCOL_FIELDS });
const PAYMENTS_ID = Object.values(DOCUMENT_GROUPS).flat().indexOf('formas_pagamento');
const ITENS = ascii('itens');
const ITEMS = ascii('items');
const ADDITIONAL = ascii(',"additional_fields":{');

// Scratch for the values of the object being read (the scan is synchronous: one at a time);
// the document's stay while its items are read.
const documentValues = new ByteWriter(1 << 16);
const documentExtras = new ByteWriter(1 << 16);
const itemValues = new ByteWriter(1 << 14);
const itemExtras = new ByteWriter(1 << 14);
/** The invoice up to its items, the items, the protocol, copied once into the answer at the end. */
export const invoiceHead = new ByteWriter(1 << 14);
export const itemsOut = new ByteWriter(1 << 20);
export const protocolOut = new ByteWriter(1 << 10);

export function nullValue(): null {
  if (scan.readScalar() !== null) scan.offPath();
  return null;
}

/**
 * The document read: its invoice up to the document's additional fields is in invoiceHead, the
 * keys of those fields in `keys` (hash, start, end); `items` is false without an items field,
 * null when it is null, true when itemsOut holds the array.
 */
export type OpenInvoice = { keys: number[]; items: boolean | null };

export function transcodeDocument(): OpenInvoice {
  const invoice: OpenInvoice = { keys: [], items: false };
  DOCUMENT.begin();
  documentValues.length = 0;
  documentExtras.length = 0;
  const base = scan.keyTop;
  if (!scan.open(OPEN_OBJECT, CLOSE_OBJECT)) {
    do {
      const id = DOCUMENT.readKey();
      if (id >= 0) {
        DOCUMENT.readValue(id, documentValues, 2, id === PAYMENTS_ID ? copyPayments : undefined);
        continue;
      }
      scan.rememberKey(base);
      if (scan.keyIs(ITENS) || scan.keyIs(ITEMS)) {
        // Both present: `items` would be an unknown field beside `itens`; left to the old path.
        if (invoice.items !== false) scan.offPath();
        invoice.items = scan.peek() === OPEN_ARRAY ? transcodeItems() : nullValue();
        continue;
      }
      invoice.keys.push(scan.keyHash, scan.keyStart, scan.keyEnd);
      if (documentExtras.length > 0) documentExtras.byte(COMMA);
      scan.copyKey(documentExtras);
      scan.copyValue(documentExtras, false, 2);
    } while (scan.next(CLOSE_OBJECT));
  }
  scan.forgetKeys(base);
  invoiceHead.length = 0;
  DOCUMENT.writeGroups(invoiceHead, documentValues);
  invoiceHead.constant(ADDITIONAL);
  invoiceHead.copy(documentExtras.bytes, 0, documentExtras.length);
  return invoice;
}

function transcodeItems(): true {
  const out = itemsOut;
  out.length = 0;
  out.byte(OPEN_ARRAY);
  ITEM_SHAPE.reset();
  if (!scan.open(OPEN_ARRAY, CLOSE_ARRAY)) {
    do {
      if (out.length > 1) out.byte(COMMA);
      if (scan.peek() !== OPEN_OBJECT) scan.offPath();
      if (ITEM_SHAPE.match(out)) continue;
      const start = scan.at;
      transcodeItem(out);
      ITEM_SHAPE.learn(start, scan.at);
    } while (scan.next(CLOSE_ARRAY));
  }
  out.byte(CLOSE_ARRAY);
  return true;
}

function transcodeItem(out: ByteWriter): void {
  ITEM.begin();
  itemValues.length = 0;
  itemExtras.length = 0;
  const base = scan.keyTop;
  if (!scan.open(OPEN_OBJECT, CLOSE_OBJECT)) {
    do {
      const id = ITEM.readKey();
      if (id >= 0) ITEM.readValue(id, itemValues, ITEM_DEPTH);
      else {
        scan.rememberKey(base);
        if (itemExtras.length > 0) itemExtras.byte(COMMA);
        scan.copyKey(itemExtras);
        scan.copyValue(itemExtras, false, ITEM_DEPTH);
      }
    } while (scan.next(CLOSE_OBJECT));
  }
  scan.forgetKeys(base);
  ITEM.writeGroups(out, itemValues);
  out.constant(ADDITIONAL);
  out.copyView(itemExtras.view, 0, itemExtras.length);
  out.byte(CLOSE_OBJECT);
  out.byte(CLOSE_OBJECT);
}

export function transcodeProtocol(): true {
  PROTOCOL.begin();
  documentValues.length = 0;
  if (!scan.open(OPEN_OBJECT, CLOSE_OBJECT)) {
    do {
      const id = PROTOCOL.readKey();
      if (id < 0) scan.skipValue(2);
      else PROTOCOL.readValue(id, documentValues, 2);
    } while (scan.next(CLOSE_OBJECT));
  }
  const out = protocolOut;
  out.length = 0;
  out.byte(OPEN_OBJECT);
  PROTOCOL.writeFields(out, scan.sourceView(), documentValues.view, 0);
  out.byte(CLOSE_OBJECT);
  return true;
}
