// Writes a planned menu (build-menu.ts) as a stream of slices of the catalog's body. Slices that
// follow each other in it are sent as one, so a menu showing everything within its schedules
// is a single slice; short pieces (an availability value swapped in, the products around it) are
// copied into chunks, so a response is never thousands of small writes. Categories are written
// as the socket asks for more: a response holds a chunk or two of its own, never its whole body.
import { Readable } from 'node:stream';
import { HIDDEN, type MenuPlan } from './build-menu.ts';
import type { CatalogCategory } from './catalog.ts';
import { LAYOUT } from './catalog-writer.ts';
import { END_LIST, RESOLVED } from './render-parts.ts';

/** Slices shorter than this are copied. */
const COPY_BELOW = 4096;
/** The largest chunk; copies never exceed COPY_BELOW, so one always fits in a fresh chunk. */
const CHUNK_BYTES = 64 * 1024;

/** Joins adjacent slices and copies short ones; `ready` holds what can be sent, in order. */
class Slicer {
  readonly ready: Buffer[] = [];
  private source: Buffer | null = null;
  private start = 0;
  private end = 0;
  private chunk = Buffer.alloc(0);
  private chunkStart = 0;
  private chunkEnd = 0;

  slice(source: Buffer, start: number, end: number): void {
    if (source === this.source && start === this.end) {
      this.end = end;
      return;
    }
    this.settle();
    this.source = source;
    this.start = start;
    this.end = end;
  }

  /** Everything sliced so far is in `ready`. */
  flush(): void {
    this.settle();
    this.sendChunk();
  }

  private settle(): void {
    const { source, start, end } = this;
    if (source === null) return;
    this.source = null;
    if (end - start >= COPY_BELOW) {
      this.sendChunk();
      this.ready.push(source.subarray(start, end));
      return;
    }
    if (this.chunkEnd + end - start > this.chunk.length) {
      this.sendChunk();
      // Growing chunks: a menu with a few short pieces allocates little.
      this.chunk = Buffer.allocUnsafe(
        Math.min(CHUNK_BYTES, Math.max(1024, this.chunk.length * 2, end - start)),
      );
      this.chunkStart = this.chunkEnd = 0;
    }
    this.chunkEnd += source.copy(this.chunk, this.chunkEnd, start, end);
  }

  private sendChunk(): void {
    if (this.chunkEnd === this.chunkStart) return;
    this.ready.push(this.chunk.subarray(this.chunkStart, this.chunkEnd));
    this.chunkStart = this.chunkEnd;
  }
}

/** Appends piece `p` of the catalog, after the comma written before it when `comma`. */
function slicePiece(plan: MenuPlan, p: number, comma: boolean, out: Slicer): void {
  const { pieces, pieceLayout } = plan.catalog;
  const start = pieceLayout[p * 2];
  out.slice(pieces, comma ? start - 1 : start, pieceLayout[p * 2 + 1]);
}

function writeCategory(plan: MenuPlan, category: CatalogCategory, afterAnother: boolean, out: Slicer): void {
  const { body, products } = plan.catalog;
  const { layout, resolved, fiscal, groupsFrom, groups } = products;
  out.slice(body, afterAnother ? category.start - 1 : category.start, category.productsStart);
  let listed = 0;
  for (let i = category.first; i < category.first + category.count; i++) {
    const outcome = plan.shown[i];
    if (outcome === HIDDEN) continue;
    const at = i * LAYOUT;
    // Each product but the first of its category was written after its comma.
    let from = listed++ > 0 ? layout[at] - 1 : layout[at];
    const value = resolved[i * 3 + outcome];
    if (value !== resolved[i * 3]) {
      const swapped = RESOLVED[value].bytes;
      out.slice(body, from, layout[at + 1]);
      out.slice(swapped, 0, swapped.length);
      from = layout[at + 2];
    }
    if (groupsFrom[i] < groupsFrom[i + 1]) {
      out.slice(body, from, layout[at + 3]);
      for (let g = groupsFrom[i]; g < groupsFrom[i + 1]; g++)
        slicePiece(plan, groups[g], g > groupsFrom[i], out);
      from = layout[at + 3];
    }
    // The fiscal projection takes the place of the product's final '}'.
    out.slice(body, from, plan.fiscal ? layout[at + 4] - 1 : layout[at + 4]);
    if (plan.fiscal) {
      const { bytes, ends } = plan.fiscal;
      const k = fiscal[i];
      out.slice(bytes, k === 0 ? 0 : ends[k - 1], ends[k]);
    }
  }
  out.slice(body, category.end - 2, category.end);
}

/** The body after its head (plan.top), in one buffer: what compression.ts keeps compressed per ETag. */
export function menuTail(plan: MenuPlan): Buffer {
  const out = new Slicer();
  for (const [i, category] of plan.categories.entries()) writeCategory(plan, category, i > 0, out);
  out.slice(END_LIST, 0, END_LIST.length);
  out.flush();
  return Buffer.concat(out.ready);
}

export class MenuBody extends Readable {
  private readonly plan: MenuPlan;
  private readonly out = new Slicer();
  private next = 0;
  private written = false;

  constructor(plan: MenuPlan) {
    super();
    this.plan = plan;
    this.out.slice(plan.top, 0, plan.top.length);
  }

  /**
   * Its head, made for this answer (restaurant, channel, evaluated_at), and the rest, which the
   * answer's ETag names (compression.ts's SplitBody).
   */
  parts(): { head: Buffer; tail(): Buffer } {
    return { head: this.plan.top, tail: () => menuTail(this.plan) };
  }

  override _read(): void {
    const { categories } = this.plan;
    const { ready } = this.out;
    for (;;) {
      while (ready.length > 0) if (!this.push(ready.shift())) return;
      if (this.written) {
        this.push(null);
        return;
      }
      if (this.next < categories.length) {
        writeCategory(this.plan, categories[this.next], this.next > 0, this.out);
        this.next++;
      } else {
        this.out.slice(END_LIST, 0, END_LIST.length);
        this.out.flush();
        this.written = true;
      }
    }
  }
}
