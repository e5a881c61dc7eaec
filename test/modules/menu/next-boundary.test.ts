// nextBoundaryAt (schedule-window.ts): the instant the menu's stretch next changes, found with the
// local clock of the restaurant's time zone, daylight-saving changes included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextBoundaryAt, scheduleBoundaries } from '../../../src/modules/menu/schedule-window.ts';
import type { MenuSchedule } from '../../../src/modules/menu/types.ts';

const everyDay = (start: string, end: string): MenuSchedule[] =>
  [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start, end }));

const next = (schedules: MenuSchedule[], timeZone: string, after: string) =>
  nextBoundaryAt(scheduleBoundaries([schedules]), timeZone, new Date(after))?.toISOString() ?? null;

test('the next boundary is the next opening or closing in the local time of the restaurant', () => {
  const lunch = everyDay('11:00', '15:00');
  assert.equal(next(lunch, 'America/Sao_Paulo', '2026-03-04T13:00:00Z'), '2026-03-04T14:00:00.000Z');
  assert.equal(next(lunch, 'America/Sao_Paulo', '2026-03-04T14:00:00Z'), '2026-03-04T18:00:00.000Z');
  assert.equal(next(lunch, 'America/Sao_Paulo', '2026-03-04T14:00:59Z'), '2026-03-04T18:00:00.000Z');
  assert.equal(next(lunch, 'America/Sao_Paulo', '2026-03-04T18:00:00Z'), '2026-03-05T14:00:00.000Z');
  // A product of Saturdays only: from a Wednesday, three days ahead; the week wraps.
  assert.equal(
    next([{ weekday: 6, start: '18:00', end: '24:00' }], 'America/Sao_Paulo', '2026-03-08T12:00:00Z'),
    '2026-03-14T21:00:00.000Z',
  );
});

test('no schedule, or one that neither opens nor closes, has no next boundary', () => {
  assert.equal(next([], 'America/Sao_Paulo', '2026-03-04T13:00:00Z'), null);
  assert.equal(
    next([{ weekday: 3, start: '10:00', end: '10:00' }], 'America/Sao_Paulo', '2026-03-04T13:00:00Z'),
    null,
  );
});

test('daylight saving: an hour repeated or skipped moves the instant, not the local time', () => {
  const lunch = everyDay('11:00', '15:00');
  // New York leaves daylight saving on Sunday 2026-11-01: 15:00 on Saturday is 19:00Z, 11:00 on Sunday 16:00Z.
  assert.equal(next(lunch, 'America/New_York', '2026-10-31T16:00:00Z'), '2026-10-31T19:00:00.000Z');
  assert.equal(next(lunch, 'America/New_York', '2026-10-31T20:00:00Z'), '2026-11-01T16:00:00.000Z');
  // It enters it on Sunday 2026-03-08, 02:00 -> 03:00: a window opening at 02:30, which that
  // night never shows on the clock, opens at 03:00 (07:00Z).
  const night = [{ weekday: 0, start: '02:30', end: '04:00' }];
  assert.equal(next(night, 'America/New_York', '2026-03-08T06:00:00Z'), '2026-03-08T07:00:00.000Z');
  assert.equal(next(night, 'America/New_York', '2026-03-08T07:00:00Z'), '2026-03-08T08:00:00.000Z');
});
