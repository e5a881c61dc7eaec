// The feed's cursor names the last event shown by its place in commit order (its transaction's
// xid8 and its seq) and its time, so a cursor older than the retention is told apart:
// `base64url("<xid>.<seq>.<created_at ms>")`.
import { errors } from '../../http/errors.ts';

export type Cursor = { xid: string; seq: number; at: number };

export const encodeCursor = (c: Cursor) => Buffer.from(`${c.xid}.${c.seq}.${c.at}`).toString('base64url');

const invalid = (message: string) =>
  errors.invalidQuery(`Invalid query: after ${message}.`, [{ field: 'after', message }]);

/** The cursor, or 400 invalid_query when it is not one or its events may have been purged. */
export function decodeCursor(text: string, retentionDays: number, now = Date.now()): Cursor {
  const match = /^[A-Za-z0-9_-]+$/.test(text)
    ? /^(\d{1,20})\.([1-9]\d{0,15})\.(\d{1,15})$/.exec(Buffer.from(text, 'base64url').toString('latin1'))
    : null;
  if (!match) throw invalid('is not a next_cursor of the event feed');
  const cursor = { xid: match[1], seq: Number(match[2]), at: Number(match[3]) };
  if (cursor.at < now - retentionDays * 86_400_000) {
    throw invalid(
      `has expired: events are kept ${retentionDays} days; start again without after and re-read the state`,
    );
  }
  return cursor;
}
