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

/**
 * The body, and where each product sits in it: product ids[k] is `{...,"fiscal":{...}}` from
 * spans[3k] to spans[3k + 2], its fiscal object from spans[3k + 1]. Typed arrays, not an object per
 * product: a listing unpacked from its compressed form gets them as views of its bytes, with
 * nothing for the collector to walk.
 */
export type Listing = Versioned & { body: Buffer; ids: Int32Array; spans: Uint32Array };

export function createListingWriter() {
  const body = new ByteWriter(64 * 1024);
  const ids: number[] = [];
  const spans: number[] = [];
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
    ids.push(row.id);
    spans.push(start, fiscalStart, body.length);
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
      const listing = { body: body.take(), ids: Int32Array.from(ids), spans: Uint32Array.from(spans) };
      return {
        version,
        bytes: listing.body.length + listing.ids.byteLength + listing.spans.byteLength,
        ...listing,
      };
    },
  };
}

const FISCAL_INFO = Buffer.from(',"fiscal_info":');
const CLOSE = Buffer.from('}');

/** The product as GET /v1/products/{id} answers it (`fiscal` then its alias), if it is listed. */
export function productDetail(listing: Listing, id: number): Buffer | undefined {
  const k = listing.ids.indexOf(id);
  if (k < 0) return undefined;
  const { body, spans } = listing;
  const open = spans[k * 3 + 2] - 1;
  return Buffer.concat([
    body.subarray(spans[k * 3], open),
    FISCAL_INFO,
    body.subarray(spans[k * 3 + 1], open),
    CLOSE,
  ]);
}
