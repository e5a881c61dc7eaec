// The feed's cursor names the last event shown by its place in commit order (its transaction's
// xid8 and its seq) and its time, so a cursor older than the retention is told apart, and the
// restaurant of its feed, so it is refused on another restaurant's feed (where it would skip that
// restaurant's events before it): `base64url("<xid>.<seq>.<created_at ms>.<restaurant id>")`.
// Cursors handed out before they named the restaurant (three parts) are still read.
import { errors } from '../../http/errors.ts';

export type Cursor = { xid: string; seq: number; at: number; restaurant?: number };

export const encodeCursor = (c: Cursor) =>
  Buffer.from(`${c.xid}.${c.seq}.${c.at}${c.restaurant === undefined ? '' : `.${c.restaurant}`}`).toString(
    'base64url',
  );

const XID8_MAX = 2n ** 64n - 1n;

const invalid = (message: string) =>
  errors.invalidQuery(`Invalid query: after ${message}.`, [{ field: 'after', message }]);

/** The cursor, or 400 invalid_query when it is not one or its events may have been purged. */
export function decodeCursor(
  text: string,
  retentionDays: number,
  restaurantId: number,
  now = Date.now(),
): Cursor {
  const match = /^[A-Za-z0-9_-]+$/.test(text)
    ? /^(\d{1,20})\.([1-9]\d{0,15})\.(\d{1,15})(?:\.([1-9]\d{0,9}))?$/.exec(
        Buffer.from(text, 'base64url').toString('latin1'),
      )
    : null;
  // 20 digits may still exceed xid8 (2^64 - 1), which PostgreSQL would refuse with an error.
  if (!match || BigInt(match[1]) > XID8_MAX) throw invalid('is not a next_cursor of the event feed');
  if (match[4] !== undefined && Number(match[4]) !== restaurantId) {
    throw invalid("is a next_cursor of another restaurant's event feed");
  }
  const cursor = { xid: match[1], seq: Number(match[2]), at: Number(match[3]) };
  if (cursor.at < now - retentionDays * 86_400_000) {
    throw invalid(
      `has expired: events are kept ${retentionDays} days; start again without after and re-read the state`,
    );
  }
  return cursor;
}
