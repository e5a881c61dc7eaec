// Writes a catalog's products into its blocks (catalog.ts says what a catalog is), and the pieces
// products refer to instead of holding a copy: fiscal projections, and the groups of a large
// catalog.
import { BlockWriter } from './block-writer.ts';
import type { ProductJson } from './product-json.ts';
import { END_LIST, RESOLVED } from './render-parts.ts';

/** Numbers per product in CatalogProducts.layout. */
export const LAYOUT = 6;

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
  writer: BlockWriter,
  layout: Uint32Array,
  i: number,
  first: boolean,
  json: ProductJson,
  inlineGroups: boolean,
): void {
  const value = RESOLVED[json.resolved[0]].bytes;
  let groupBytes = 0;
  if (inlineGroups) for (const group of json.groups) groupBytes += group.length + 1;
  const head = json.head.length * 3 + RESOLVED_KEY.length + value.length;
  writer.reserve(1 + head + GROUPS_OPEN.length + groupBytes + END_LIST.length);
  if (!first) writer.copy(COMMA);
  const at = i * LAYOUT;
  layout[at] = writer.block;
  layout[at + 1] = writer.pos;
  writer.write(json.head);
  writer.drop(2); // the '}}' that close availability and the product
  layout[at + 2] = writer.copy(RESOLVED_KEY);
  layout[at + 3] = writer.copy(value);
  let groupsEnd = writer.copy(GROUPS_OPEN);
  if (inlineGroups)
    for (const [k, group] of json.groups.entries()) {
      if (k > 0) writer.copy(COMMA);
      groupsEnd = writer.copy(group);
    }
  layout[at + 4] = groupsEnd;
  layout[at + 5] = writer.copy(END_LIST);
}

/** Text kept once per catalog and referred to by number; Catalog.pieceLayout says where. */
export class PieceWriter {
  private readonly writer: BlockWriter;
  private readonly written = new Map<unknown, number>();
  private readonly places: number[] = [];

  constructor(expectedBytes: number) {
    this.writer = new BlockWriter(expectedBytes);
  }

  /** The piece of `key`, written the first time; with `comma`, a ',' precedes it in the block. */
  place(key: unknown, text: () => string | Uint8Array, comma = false): number {
    let piece = this.written.get(key);
    if (piece === undefined) {
      const value = text();
      const writer = this.writer;
      writer.reserve(1 + (typeof value === 'string' ? value.length * 3 : value.length));
      if (comma) writer.copy(COMMA);
      const { block, pos } = writer;
      const end = typeof value === 'string' ? writer.write(value) : writer.copy(value);
      piece = this.places.length / 3;
      this.places.push(block, pos, end);
      this.written.set(key, piece);
    }
    return piece;
  }

  finish(): { pieces: Buffer[]; pieceLayout: Uint32Array } {
    return { pieces: this.writer.finish(), pieceLayout: Uint32Array.from(this.places) };
  }
}
