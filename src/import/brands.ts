// Brands: at most one default (non-deleted) brand per restaurant, counting the brands already
// in the database that the file does not replace; fiscal tokens encrypted at rest.
import { sql } from 'kysely';
import { decryptSecret, encryptSecret } from '../lib/encryption.ts';
import { inRestaurant, name } from './catalog.ts';
import type { Collection, Row } from './collection.ts';
import { bool, id, instant, text } from './fields.ts';
import { nullable, optional, required } from './record.ts';
import { upsertRows } from './write.ts';

export const brands: Collection = {
  name: 'brands',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    name,
    fantasy_name: nullable(text({ max: 255 })),
    cnpj: nullable(text({ nonEmpty: true, max: 18 })),
    is_default: optional(bool, false),
    fiscal_token: nullable(text({ nonEmpty: true })),
    deleted_at: nullable(instant),
  },
  ids: (row) => [{ path: '.id', table: 'brands', id: row.id }],
  refs: inRestaurant,
  size: () => 1,
  verify: async (tx, records, issues) => {
    const defaults = new Map<number, string>();
    const fileIds = records.map((r) => r.row.id);
    const restaurantIds = [...new Set(records.map((r) => r.row.restaurant_id))];
    const stored = await tx
      .selectFrom('brands')
      .select(['id', 'restaurant_id'])
      .where('is_default', '=', true)
      .where('deleted_at', 'is', null)
      .where('restaurant_id', '=', sql<number>`any(${restaurantIds})`)
      .where(sql<boolean>`not (id = any(${fileIds}))`)
      .execute();
    for (const brand of stored) defaults.set(brand.restaurant_id, `brand ${brand.id} in the database`);
    for (const { at, row } of records) {
      if (!row.is_default || row.deleted_at !== null) continue;
      const other = defaults.get(row.restaurant_id);
      if (other)
        issues.add(
          `${at}.is_default`,
          `restaurant ${row.restaurant_id} already has a default brand (${other})`,
        );
      else defaults.set(row.restaurant_id, at);
    }
  },
  write: async (ctx, records) => {
    const ids = records.map((r) => r.row.id);
    // Read under the row locks, taken in id order before the brands that stop being the default
    // are written: two imports lock the brands they both change in one order (write.ts).
    const stored = new Map(
      (
        await ctx.tx
          .selectFrom('brands')
          .select(['id', 'fiscal_token_encrypted'])
          .where('id', '=', sql<number>`any(${ids})`)
          .orderBy('id')
          .forNoKeyUpdate()
          .execute()
      ).map((b) => [b.id, b.fiscal_token_encrypted]),
    );
    const rows = records.map(({ row: { fiscal_token, ...brand } }): Row => {
      if (fiscal_token !== null && !ctx.fiscalTokenKey)
        throw new Error('a fiscal token key is required to import fiscal tokens');
      return {
        ...brand,
        fiscal_token_encrypted:
          fiscal_token === null ? null : encrypted(fiscal_token, ctx.fiscalTokenKey!, stored.get(brand.id)),
      };
    });
    // The default moves between brands without passing through two defaults at once: the brands
    // that stop being the default lose it first (the others are not written: nfe_version stays).
    const undefaulted = rows.filter((r) => !r.is_default || r.deleted_at !== null).map((r) => r.id);
    if (undefaulted.length)
      await ctx.tx
        .updateTable('brands')
        .set({ is_default: false })
        .where('id', '=', sql<number>`any(${undefaulted})`)
        .where('is_default', '=', true)
        .execute();
    // A brand equal to the stored one is not written again (it moves no nfe_version, 0010).
    await upsertRows(ctx, 'brands', rows, 'id', true);
    return { brands: rows.length };
  },
};

/** The stored encryption of `token` when it is that token (a fresh IV would make every brand differ), else a new one. */
function encrypted(token: string, key: string, stored: string | null | undefined): string {
  if (stored) {
    try {
      if (decryptSecret(stored, key) === token) return stored;
    } catch {}
  }
  return encryptSecret(token, key);
}
