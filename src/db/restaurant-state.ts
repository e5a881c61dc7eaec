// The restaurant's settings and data versions that the cached reads check on every request (the
// menu, the legacy listing and its products, the cash flows, the received NF-e list, the event
// feed): one row, read for many requests at once (src/lib/batched-lookup.ts), after each request
// arrived, so a write committed before it is seen (src/lib/versioned-cache.ts says why that is
// enough). Inside a transaction, read the columns in the transaction's own statements instead.
import { batchedPerHandle } from '../lib/batched-lookup.ts';
import type { Db } from './database.ts';
import { prepared } from './prepared.ts';

export type RestaurantState = {
  timezone: string;
  accepts_scheduling: boolean;
  catalog_version: number;
  cash_flow_version: number;
  nfe_version: number;
  events_version: number;
};

const COLUMNS = [
  'timezone',
  'accepts_scheduling',
  'catalog_version',
  'cash_flow_version',
  'nfe_version',
  'events_version',
] as const;

/** The state's columns of a row that holds them among others. */
export function stateOf(row: RestaurantState): RestaurantState {
  const { timezone, accepts_scheduling, catalog_version, cash_flow_version, nfe_version, events_version } =
    row;
  return { timezone, accepts_scheduling, catalog_version, cash_flow_version, nfe_version, events_version };
}

/** The state's columns of `restaurants` as `alias`, for a statement that reads them with other rows. */
export const stateColumns = (alias: string) => COLUMNS.map((c) => `${alias}.${c}`).join(', ');

const readRows = prepared<RestaurantState & { id: number }>(
  `select id, ${stateColumns('restaurants')} from restaurants where id = any($1::int[])`,
);

async function readStates(db: Db, ids: number[]): Promise<Map<number, RestaurantState>> {
  const { rows } = await readRows(db, [ids]);
  return new Map(rows.map(({ id, ...state }) => [id, state]));
}

/** The restaurant's state; undefined when there is no such restaurant (a token outliving it). */
export const readRestaurantState: (db: Db, restaurantId: number) => Promise<RestaurantState | undefined> =
  batchedPerHandle(readStates);

/**
 * The restaurant a request is about: its id, and its state read once, after the request arrived:
 * with the request's token (authenticate.ts reads both in one statement) or on first ask.
 */
export type Restaurant = { id: number; state(): Promise<RestaurantState | undefined> };

export function restaurantOf(db: Db, id: number, known?: RestaurantState): Restaurant {
  let read: Promise<RestaurantState | undefined> | undefined = known && Promise.resolve(known);
  return { id, state: () => (read ??= readRestaurantState(db, id)) };
}
