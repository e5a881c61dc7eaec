// The session check fails closed: a session the statement does not answer for counts as ended.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { Db } from '../../../src/db/database.ts';
import { checkSession } from '../../../src/modules/auth/session-check.ts';

test('a session missing from the statement’s answer is refused, not let through', async () => {
  const asked: unknown[][] = [];
  const db = {
    executeQuery: async (query: { parameters: unknown[] }) => {
      asked.push(query.parameters);
      return { rows: [] };
    },
  } as unknown as Db;
  const jti = randomUUID();
  assert.deepEqual(await checkSession(db, jti, 7), { ended: true });
  assert.deepEqual(asked, [[[jti], [7]]]);
});
