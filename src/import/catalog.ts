// Restaurants, brands, product categories and add-on groups (complement categories + options).
// A row equal to the stored one is not written again (catalog_version stays), and what a menu
// shows of the others is recorded for menu.updated (events.ts).
import { sql } from 'kysely';
import type { Collection, Rec, Ref, Row, WriteContext } from './collection.ts';
import { menuChanged } from './events.ts';
import { arrayOf, bool, id, instant, integer, oneOf, text, timeZone } from './fields.ts';
import { money } from './money.ts';
import { nested, nullable, optional, required } from './record.ts';
import { schedules } from './schedules.ts';
import { differences, insertNew, lockRows, upsertRows } from './write.ts';

export const name = required(text({ trim: true, nonEmpty: true, max: 255 }));

export const inRestaurant = (row: Row): Ref[] => [
  { path: '.restaurant_id', table: 'restaurants', id: row.restaurant_id },
];

const rowsOf = (records: Rec[]) => records.map((r) => r.row);

/**
 * Writes `rows` that differ from the stored ones; a menu changes where they differ beyond `unshown`.
 * The others are not even upserted: ON CONFLICT DO UPDATE locks the row it leaves as it is, and a
 * restaurant row locked for the rest of the import deadlocks with a product write of that
 * restaurant, whose deferred catalog_version bump (0003) updates that row at its commit.
 */
async function writeShown(ctx: WriteContext, table: string, rows: Row[], unshown: string[]) {
  const differing = await differences(ctx, table, rows);
  await upsertRows(
    ctx,
    table,
    rows.filter((row) => differing.has(row.id)),
    'id',
    true,
  );
  ctx.advance(rows.length - differing.size);
  // A restaurant row is its own restaurant.
  for (const row of rows)
    if (differing.get(row.id)?.some((column) => !unshown.includes(column)))
      menuChanged(ctx, row.restaurant_id ?? row.id);
}

export const restaurants: Collection = {
  name: 'restaurants',
  spec: {
    id: required(id),
    name,
    timezone: optional(timeZone, 'America/Sao_Paulo'),
    accepts_scheduling: optional(bool, false),
  },
  ids: (row) => [{ path: '.id', table: 'restaurants', id: row.id }],
  size: () => 1,
  write: async (ctx, records) => {
    // New restaurants are inserted now, before the records that reference them. Stored ones that
    // differ are updated last (updateRestaurants): a restaurant row held for the whole import
    // deadlocks with a write of that restaurant, whose commit-time version bump updates the row.
    const rows = rowsOf(records);
    const inserted = new Set(await insertNew(ctx, 'restaurants', rows));
    for (const id of inserted) menuChanged(ctx, id);
    const stored = rows.filter((row) => !inserted.has(row.id));
    const differing = await differences(ctx, 'restaurants', stored);
    ctx.restaurants?.push(...stored.filter((row) => differing.has(row.id)));
    ctx.advance(rows.length);
    return { restaurants: records.length };
  },
};

/** Writes the stored restaurants the file changes; the import holds their rows locked already. */
export async function updateRestaurants(ctx: WriteContext, rows: Row[]) {
  // The menu reads a restaurant's time zone and scheduling, not its name.
  if (rows.length) await writeShown({ ...ctx, advance: () => {} }, 'restaurants', rows, ['name']);
}

export const productCategories: Collection = {
  name: 'product_categories',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    brand_id: nullable(id),
    name,
    position: optional(integer(), 0),
    available: optional(bool, true),
    kind: optional(oneOf(['regular', 'packaging', 'marketplace_mirror']), 'regular'),
    schedules: optional(schedules, []),
    removed_at: nullable(instant),
  },
  ids: (row) => [{ path: '.id', table: 'product_categories', id: row.id }],
  refs: (row) => [
    ...inRestaurant(row),
    ...(row.brand_id === null ? [] : [{ path: '.brand_id', table: 'brands' as const, id: row.brand_id }]),
  ],
  size: () => 1,
  write: async (ctx, records) => {
    const rows = records.map(({ row }) => row);
    await writeShown(ctx, 'product_categories', rows, ['brand_id']);
    // Products follow their category's brand, also those the file does not list.
    await sql`update products p set brand_id = c.brand_id from product_categories c
      where c.id = p.product_category_id and c.id = any(${rows.map((r) => r.id)})
      and p.brand_id is distinct from c.brand_id`.execute(ctx.tx);
    return { product_categories: records.length };
  },
};

const option = nested({
  id: required(id),
  name,
  price: optional(money({ min: 0 }), '0.00'),
  delivery_price: nullable(money({ min: 0 })),
  available: optional(bool, true),
  position: optional(integer(), null),
  removed_at: nullable(instant),
});

export const complementCategories: Collection = {
  name: 'complement_categories',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    name,
    min: optional(integer(0, 1000), 0),
    max: optional(integer(0, 1000), 1),
    options: optional(arrayOf(option), []),
    removed_at: nullable(instant),
  },
  ids: (row) => [
    { path: '.id', table: 'complement_categories', id: row.id },
    ...row.options.map((o: Row, i: number) => ({
      path: `.options[${i}].id`,
      table: 'complement_options',
      id: o.id,
    })),
  ],
  refs: inRestaurant,
  check: (row, at, issues) => {
    if (row.max < row.min) issues.add(`${at}.max`, `must be at least min (${row.min})`);
  },
  size: (row) => 1 + row.options.length,
  write: async (ctx, records) => {
    const groups = records.map(({ row: { options, ...group } }) => group);
    const options = records.flatMap(({ row }) =>
      row.options.map((o: Row, i: number) => ({
        ...o,
        position: o.position ?? i,
        restaurant_id: row.restaurant_id,
        complement_category_id: row.id,
      })),
    );
    // Every column of a group and of an option is in the menu.
    await writeShown(ctx, 'complement_categories', groups, []);
    // The options it may write or delete (the file's, and its groups' stored ones), locked in id
    // order first: two imports lock the options they both change in one order (write.ts).
    await lockRows(
      ctx,
      'complement_options',
      'complement_category_id',
      options.map((o) => o.id),
      groups.map((g) => g.id),
    );
    // Replacing a group replaces its options: those no longer in the file go.
    const removed = await ctx.tx
      .deleteFrom('complement_options')
      .where('complement_category_id', '=', sql<number>`any(${groups.map((g) => g.id)})`)
      .where(sql<boolean>`not (id = any(${options.map((o) => o.id)}))`)
      .returning('restaurant_id')
      .execute();
    for (const { restaurant_id } of removed) menuChanged(ctx, restaurant_id);
    await writeShown(ctx, 'complement_options', options, []);
    return { complement_categories: groups.length, complement_options: options.length };
  },
};
