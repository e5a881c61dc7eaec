// The pre-rendered menu (catalog.ts, build-menu.ts, menu-body.ts) against the straightforward
// serialisation of the same rows (reference-menu.ts), byte for byte, for every combination of
// the query: channel, only_available, include_fiscal_info, search, category_id, and instants
// inside and outside the schedules, with and without scheduled orders accepted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planMenu } from '../../../src/modules/menu/build-menu.ts';
import { assembleCatalog, type Catalog } from '../../../src/modules/menu/catalog.ts';
import { MenuBody } from '../../../src/modules/menu/menu-body.ts';
import type { CatalogRows } from '../../../src/modules/menu/repository.ts';
import { localClock } from '../../../src/modules/menu/schedule.ts';
import { normalizeSearch } from '../../../src/modules/menu/search.ts';
import type { MenuChannel } from '../../../src/modules/menu/types.ts';
import { catalogRows } from './catalog-rows.ts';
import { type ReferenceQuery, referenceMenu } from './reference-menu.ts';

const TIMEZONE = 'America/Sao_Paulo';
const INSTANTS = [
  '2026-03-04T15:00:00.000Z', // Wednesday 12:00 local: lunch open, Friday night closed
  '2026-03-06T22:00:00.000Z', // Friday 19:00 local: lunch closed, Friday night open
  '2026-03-07T02:30:00.000Z', // Friday 23:30 local: the end minute, closed
  '2026-03-08T16:00:00.000Z', // Sunday 13:00 local: every schedule closed
].map((at) => new Date(at));
const CHANNELS: MenuChannel[] = ['in_store', 'delivery'];

type Filters = { searches: string[]; categoryIds: (number | undefined)[] };

function* queries(filters: Filters): Generator<Omit<ReferenceQuery, 'channel'>> {
  for (const at of INSTANTS)
    for (const acceptsScheduling of [false, true])
      for (const onlyAvailable of [false, true])
        for (const includeFiscal of [false, true])
          for (const search of filters.searches)
            for (const categoryId of filters.categoryIds)
              yield {
                restaurantId: 7,
                timezone: TIMEZONE,
                acceptsScheduling,
                at,
                onlyAvailable,
                includeFiscal,
                search,
                categoryId,
              };
}

async function served(catalog: Catalog, query: ReferenceQuery) {
  const request = { ...query, categoryId: query.categoryId, needle: normalizeSearch(query.search ?? '') };
  const plan = planMenu(catalog, {
    request,
    clock: localClock(query.at, query.timezone),
    acceptsScheduling: query.acceptsScheduling,
  });
  const body = Buffer.concat(await new MenuBody(plan).toArray());
  return { body, length: plan.length };
}

async function assertSameBytes(rows: CatalogRows, filters: Filters, inlineGroupsMaxBytes?: number) {
  let compared = 0;
  for (const channel of CHANNELS) {
    const catalog = assembleCatalog(rows, channel, inlineGroupsMaxBytes);
    for (const query of queries(filters)) {
      const expected = referenceMenu(rows, { ...query, channel });
      const { body, length } = await served(catalog, { ...query, channel });
      const label = JSON.stringify({ ...query, channel });
      assert.equal(body.toString(), expected, label);
      assert.equal(length, body.length, `content-length of ${label}`);
      compared++;
    }
  }
  return compared;
}

describe('the menu bytes equal a straightforward serialisation of the same rows', () => {
  test('a small catalog with every case, for every combination of the query', async () => {
    const rows = catalogRows({ categories: 10, perCategory: 6, descriptionLength: 40, seed: 1 });
    const compared = await assertSameBytes(rows, {
      searches: ['', 'pao', 'CAFÉ', 'ninguém tem isto'],
      categoryIds: [undefined, 101, 102, 104, 99, 12345],
    });
    assert.equal(compared, 2 * 32 * 4 * 6);
  });

  test('other seeds give other mixes of flags, and the same equality', async () => {
    for (const seed of [2, 3, 4, 5]) {
      const rows = catalogRows({ categories: 9, perCategory: 5, descriptionLength: 20, seed });
      await assertSameBytes(rows, { searches: ['', 'pizza'], categoryIds: [undefined, 101] });
    }
  });

  test('a catalog of several megabytes, larger than the room first made for it', async () => {
    const rows = catalogRows({ categories: 30, perCategory: 40, descriptionLength: 1500, seed: 6 });
    const catalog = assembleCatalog(rows, 'in_store');
    assert.ok(catalog.body.length > 30 * 40 * 1536, `${catalog.body.length} bytes`);
    assert.equal(catalog.products.groups.length, 0, 'groups written inline');
    await assertSameBytes(rows, { searches: ['', 'ça va'], categoryIds: [undefined] });
  });

  test('a catalog whose products refer to their groups, as a large one does', async () => {
    const rows = catalogRows({ categories: 10, perCategory: 6, descriptionLength: 40, seed: 7 });
    const catalog = assembleCatalog(rows, 'delivery', 0);
    assert.ok(catalog.products.groups.length > 0, 'groups referred to');
    const filters = { searches: ['', 'pao'], categoryIds: [undefined, 101] };
    await assertSameBytes(rows, filters, 0);
    const large = catalogRows({ categories: 30, perCategory: 40, descriptionLength: 1500, seed: 8 });
    await assertSameBytes(large, { searches: [''], categoryIds: [undefined] }, 0);
  });

  test('a catalog without categories is an empty list', async () => {
    const rows: CatalogRows = {
      version: 1,
      categories: [],
      products: [],
      groups: [],
      links: [],
      comboItems: [],
    };
    await assertSameBytes(rows, { searches: [''], categoryIds: [undefined] });
  });
});

test('a catalog normalises its names and descriptions for search only when a read first searches', async () => {
  const rows = catalogRows({ categories: 4, perCategory: 5, descriptionLength: 30, seed: 9 });
  const catalog = assembleCatalog(rows, 'in_store');
  const query = {
    ...queries({ searches: [''], categoryIds: [undefined] }).next().value!,
    channel: 'in_store' as const,
  };
  await served(catalog, query);
  assert.equal(catalog.searchIndex, undefined, 'a read without search leaves it unmade');
  const searched = { ...query, search: 'PÃO' };
  const { body } = await served(catalog, searched);
  assert.ok(catalog.searchIndex, 'made by the first search');
  assert.equal(body.toString(), referenceMenu(rows, searched));
  const made = catalog.searchIndex;
  await served(catalog, { ...query, search: 'cafe' });
  assert.equal(catalog.searchIndex, made, 'kept for the next search');
});
