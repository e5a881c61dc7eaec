// The feed's cursor names the last event shown by its place in commit order (its transaction's
// xid8 and its seq) and the restaurant of its feed, so it is refused on another restaurant's feed
// (where it would skip that restaurant's events before it): `base64url("v2.<xid>.<seq>.<restaurant
// id>")`. Whether events after it were purged is told by event_purges (feed-service.ts), not by its
// age. Cursors handed out before event_purges existed (`<xid>.<seq>.<created_at ms>[.<restaurant>]`)
// are still read, and also expire with age: a purge before then left no record.
import { errors } from '../../http/errors.ts';

export type Cursor = { xid: string; seq: number };

export const encodeCursor = (c: Cursor, restaurantId: number) =>
  Buffer.from(`v2.${c.xid}.${c.seq}.${restaurantId}`).toString('base64url');

const XID8_MAX = 2n ** 64n - 1n;
const CURRENT = /^v2\.(\d{1,20})\.([1-9]\d{0,15})\.([1-9]\d{0,9})$/;
const LEGACY = /^(\d{1,20})\.([1-9]\d{0,15})\.(\d{1,15})(?:\.([1-9]\d{0,9}))?$/;

const invalid = (message: string) =>
  errors.invalidQuery(`Invalid query: after ${message}.`, [{ field: 'after', message }]);

/** 400 invalid_query for a cursor after which events the feed would show have been purged. */
export const expired = () =>
  invalid('has expired: events after it were purged; start again without after and re-read the state');

/** The cursor, or 400 invalid_query when it is not one of this restaurant's feed (or a legacy one has aged). */
export function decodeCursor(
  text: string,
  retentionDays: number,
  restaurantId: number,
  now = Date.now(),
): Cursor {
  const plain = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url').toString('latin1') : '';
  const current = CURRENT.exec(plain);
  const legacy = current ? null : LEGACY.exec(plain);
  const [xid, seq, restaurant] = current
    ? [current[1], current[2], current[3]]
    : legacy
      ? [legacy[1], legacy[2], legacy[4]]
      : [];
  // 20 digits may still exceed xid8 (2^64 - 1), which PostgreSQL would refuse with an error.
  // A seq past 2^53 - 1 would be rounded, and a page after it handed back a cursor of another place.
  if (xid === undefined || BigInt(xid) > XID8_MAX || !Number.isSafeInteger(Number(seq))) {
    throw invalid('is not a next_cursor of the event feed');
  }
  if (restaurant !== undefined && Number(restaurant) !== restaurantId) {
    throw invalid("is a next_cursor of another restaurant's event feed");
  }
  if (legacy && Number(legacy[3]) < now - retentionDays * 86_400_000) throw expired();
  return { xid, seq: Number(seq) };
}
