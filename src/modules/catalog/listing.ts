// The legacy listing (GET /v1/products) as UTF-8 JSON, rendered once per catalog version and
// served as is until the version moves (read-service.ts): serialising 2,000 products per request
// costs about 36 ms of CPU and 2.5 MB of garbage. The bytes are the ones the Catalog response
// schema's serialiser writes for mapProduct's objects (test/modules/catalog/listing-bytes.test.ts),
// from productParts.
//
// The JSON is written as the cursor's batches arrive, so no object graph of the whole catalog is
// ever held, only its bytes. Where each product sits in them is kept: GET /v1/products/{id}
// answers from there while the version holds (productDetail).
import { ByteWriter } from '../../lib/byte-writer.ts';
import type { Versioned } from '../../lib/versioned-cache.ts';
import { productParts } from './product-map.ts';
import type { ListingRow } from './read-repository.ts';

/** A product's JSON in the body: `{...,"fiscal":{...}}` from start to end, its fiscal object from fiscal. */
type Slot = { start: number; fiscal: number; end: number };

export type Listing = Versioned & { body: Buffer; slots: Map<number, Slot> };

/** An estimate of what a slot costs in memory beside its bytes (the Map entry and the object). */
const SLOT_BYTES = 96;

export function createListingWriter() {
  const body = new ByteWriter(64 * 1024);
  const slots = new Map<number, Slot>();
  let category: number | null = null;
  let firstProduct = true;
  body.text('[');

  function addProduct(row: ListingRow & { id: number }): void {
    if (!firstProduct) body.text(',');
    firstProduct = false;
    const { head, fiscal } = productParts(row);
    const start = body.length;
    body.text(`${head},"fiscal":`);
    const fiscalStart = body.length;
    body.text(`${fiscal}}`);
    slots.set(row.id, { start, fiscal: fiscalStart, end: body.length });
  }

  return {
    /** Rows in listing order (the cursor's batches, one after the other). */
    add(rows: ListingRow[]): void {
      for (const row of rows) {
        if (row.c_id !== category) {
          if (category !== null) body.text(']},');
          category = row.c_id;
          firstProduct = true;
          const head = {
            id: row.c_id,
            name: row.c_name,
            position: row.c_position,
            available: row.c_available,
          };
          body.text(`${JSON.stringify(head).slice(0, -1)},"products":[`);
        }
        if (row.id !== null) addProduct(row);
      }
    },
    finish(version: number): Listing {
      body.text(category === null ? ']' : ']}]');
      const bytes = body.take();
      return { version, bytes: bytes.length + slots.size * SLOT_BYTES, body: bytes, slots };
    },
  };
}

const FISCAL_INFO = Buffer.from(',"fiscal_info":');
const CLOSE = Buffer.from('}');

/** The product as GET /v1/products/{id} answers it (`fiscal` then its alias), if it is listed. */
export function productDetail(listing: Listing, id: number): Buffer | undefined {
  const slot = listing.slots.get(id);
  if (!slot) return undefined;
  const { body } = listing;
  const open = slot.end - 1;
  return Buffer.concat([
    body.subarray(slot.start, open),
    FISCAL_INFO,
    body.subarray(slot.fiscal, open),
    CLOSE,
  ]);
}
