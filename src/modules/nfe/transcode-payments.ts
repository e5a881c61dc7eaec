// formas_pagamento in the transcoder: the one named field whose elements keep a member as JSON.
// The mapping wrote each payment that has `tipo_integracao` as its other members (as text, in
// their order) followed by `tipo_integracao` with its JSON type; anything else is plain text.
import { ascii, ByteWriter } from '../../lib/byte-writer.ts';
import * as scan from './json-bytes.ts';
import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT } from './json-chars.ts';

const TIPO = ascii('tipo_integracao');
const TIPO_KEY = ascii('"tipo_integracao":');
const tipo = new ByteWriter(256);

export function copyPayments(out: ByteWriter, depth: number): void {
  if (scan.peek() !== OPEN_ARRAY) {
    scan.copyValue(out, true, depth);
    return;
  }
  out.byte(OPEN_ARRAY);
  if (!scan.open(OPEN_ARRAY, CLOSE_ARRAY)) {
    let comma = false;
    do {
      if (comma) out.byte(COMMA);
      comma = true;
      if (scan.peek() === OPEN_OBJECT) copyPayment(out, depth + 1);
      else scan.copyValue(out, true, depth + 1);
    } while (scan.next(CLOSE_ARRAY));
  }
  out.byte(CLOSE_ARRAY);
}

function copyPayment(out: ByteWriter, depth: number): void {
  out.byte(OPEN_OBJECT);
  const base = scan.keyTop;
  let comma = false;
  let hasTipo = false;
  if (!scan.open(OPEN_OBJECT, CLOSE_OBJECT)) {
    do {
      scan.readKey();
      scan.rememberKey(base);
      if (scan.keyIs(TIPO)) {
        tipo.length = 0;
        scan.copyValue(tipo, false, depth + 1);
        hasTipo = true;
        continue;
      }
      if (comma) out.byte(COMMA);
      comma = true;
      scan.copyKey(out);
      scan.copyValue(out, true, depth + 1);
    } while (scan.next(CLOSE_OBJECT));
  }
  scan.forgetKeys(base);
  if (hasTipo) {
    if (comma) out.byte(COMMA);
    out.constant(TIPO_KEY);
    out.copy(tipo.bytes, 0, tipo.length);
  }
  out.byte(CLOSE_OBJECT);
}
