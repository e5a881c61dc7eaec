// Writes a catalog's products into its body (catalog.ts says what a catalog is), and the pieces
// products refer to instead of holding a copy: the groups of a large catalog.
import { ByteWriter } from '../../lib/byte-writer.ts';
import type { ProductJson } from './product-json.ts';
import { END_LIST, RESOLVED } from './render-parts.ts';

/** Numbers per product in CatalogProducts.layout. */
export const LAYOUT = 5;

const COMMA = Buffer.from(',');
const RESOLVED_KEY = Buffer.from(',"resolved":');
const GROUPS_OPEN = Buffer.from('},"complement_categories":[');

/**
 * Writes ',' (but before the first of a category) and the product: its head, which gives back
 * its closing '}}' to `,"resolved":` and the value (product-json.ts), then its groups inline or,
 * when `inlineGroups` is false, none (the reader inserts the pieces before ']}'). Records the
 * offsets in `layout`.
 */
export function writeProduct(
  writer: ByteWriter,
  layout: Uint32Array,
  i: number,
  first: boolean,
  json: ProductJson,
  inlineGroups: boolean,
): void {
  if (!first) writer.copy(COMMA);
  const at = i * LAYOUT;
  layout[at] = writer.length;
  writer.text(json.head);
  writer.drop(2); // the '}}' that close availability and the product
  layout[at + 1] = writer.copy(RESOLVED_KEY);
  layout[at + 2] = writer.copy(RESOLVED[json.resolved[0]].bytes);
  let groupsEnd = writer.copy(GROUPS_OPEN);
  if (inlineGroups)
    for (const [k, group] of json.groups.entries()) {
      if (k > 0) writer.copy(COMMA);
      groupsEnd = writer.copy(group);
    }
  layout[at + 3] = groupsEnd;
  layout[at + 4] = writer.copy(END_LIST);
}

/** Groups kept once per catalog and referred to by number; Catalog.pieceLayout says where. */
export class PieceWriter {
  private readonly writer: ByteWriter;
  private readonly written = new Map<Buffer, number>();
  private readonly places: number[] = [];

  constructor(expectedBytes: number) {
    this.writer = new ByteWriter(expectedBytes);
  }

  /** The piece of `group`, written after a ',' the first time. */
  place(group: Buffer): number {
    let piece = this.written.get(group);
    if (piece === undefined) {
      const start = this.writer.copy(COMMA);
      piece = this.places.push(start, this.writer.copy(group)) / 2 - 1;
      this.written.set(group, piece);
    }
    return piece;
  }

  finish(): { pieces: Buffer; pieceLayout: Uint32Array } {
    return { pieces: this.writer.take(), pieceLayout: Uint32Array.from(this.places) };
  }
}
