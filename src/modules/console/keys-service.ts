// API keys from the console: the keys of the current restaurant, creating one from the form
// (scopes from the catalogue, restaurants the staff member belongs to), revoking one.

import type { Db } from '../../db/database.ts';
import { unstorable } from '../../db/storable-text.ts';
import { SCOPES, type Scope } from '../../http/principal.ts';
import { type Environment, revokeApiKey, storeApiKey } from '../auth/api-keys.ts';
import type { Staff } from './console-session.ts';
import { findKey, type KeyRow, listKeys } from './keys-repository.ts';

export type KeyView = {
  id: number;
  name: string;
  prefix: string;
  environment: Environment;
  scopes: string[];
  restaurantIds: number[];
  createdAt: Date;
  lastUsedAt: Date | null;
  status: 'active' | 'revoked' | 'expired';
};

function mapKey(row: KeyRow, now = new Date()): KeyView {
  const expired = row.expires_at !== null && row.expires_at <= now;
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment,
    scopes: row.scopes,
    restaurantIds: row.restaurant_ids,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    status: row.revoked_at ? 'revoked' : expired ? 'expired' : 'active',
  };
}

export async function restaurantKeys(db: Db, restaurantId: number): Promise<KeyView[]> {
  return (await listKeys(db, restaurantId)).map((row) => mapKey(row));
}

export async function restaurantKey(db: Db, restaurantId: number, id: number): Promise<KeyView | null> {
  const row = await findKey(db, restaurantId, id);
  return row ? mapKey(row) : null;
}

export type KeyForm = { name: string; scopes: string[]; restaurantIds: number[]; environment: string };
export type KeyProblems = Partial<Record<keyof KeyForm, string>>;

export function readKeyForm(form: URLSearchParams): KeyForm {
  return {
    name: (form.get('name') ?? '').trim(),
    scopes: form.getAll('scopes'),
    // A restaurant sent twice is one restaurant (a second link row would fail with a 500).
    restaurantIds: [...new Set(form.getAll('restaurant_ids').map(Number))],
    environment: form.get('environment') ?? '',
  };
}

export function keyFormProblems(staff: Staff, input: KeyForm): KeyProblems {
  const problems: KeyProblems = {};
  if (!input.name) problems.name = 'Give the key a name.';
  else if (input.name.length > 100) problems.name = 'Use at most 100 characters.';
  else if (unstorable(input.name)) problems.name = 'Use letters, digits and punctuation.';
  if (!input.scopes.length || input.scopes.some((s) => !SCOPES.includes(s as Scope))) {
    problems.scopes = 'Choose at least one permission.';
  }
  const mine = staff.restaurants.map((r) => r.id);
  if (!input.restaurantIds.length || input.restaurantIds.some((id) => !mine.includes(id))) {
    problems.restaurantIds = 'Choose at least one of your restaurants.';
  }
  if (input.environment !== 'live' && input.environment !== 'test')
    problems.environment = 'Choose live or test.';
  return problems;
}

/** The plain key is in the answer once and never stored (only its SHA-256 is). */
export async function createKey(db: Db, input: KeyForm) {
  const environment = input.environment as Environment;
  const key = await storeApiKey(db, { ...input, environment });
  return {
    id: key.id,
    apiKey: key.api_key,
    environment,
    scopes: key.scopes,
    restaurantIds: key.restaurant_ids,
  };
}

/** Revokes a key of the restaurant: its tokens stop working at once (revokeApiKey). */
export async function revokeKey(db: Db, restaurantId: number, id: number): Promise<KeyView | null> {
  const key = await restaurantKey(db, restaurantId, id);
  if (key) await revokeApiKey(db, id);
  return key;
}
