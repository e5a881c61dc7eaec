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

test('a daylight-saving change on the way to a window shorter than the hour it skips or repeats does not skip the window', () => {
  // New York enters daylight saving on Sunday 2026-03-08 (02:00 -> 03:00). From the Saturday
  // before, the next boundary of a weekly 15-minute window on Wednesday at 00:00 is that Wednesday,
  // 00:00 EDT (04:00Z): not the Wednesday a week later, as a hop of local minutes that lands an
  // hour late, past the window's end, would find.
  const special = [{ weekday: 3, start: '00:00', end: '00:15' }];
  assert.equal(next(special, 'America/New_York', '2026-03-07T22:00:00Z'), '2026-03-11T04:00:00.000Z');
  assert.equal(next(special, 'America/New_York', '2026-03-11T04:00:00Z'), '2026-03-11T04:15:00.000Z');
  // Lord Howe Island skips half an hour (02:00 -> 02:30 on Sunday 2026-10-04): a 20-minute window.
  const short = [{ weekday: 2, start: '12:00', end: '12:20' }];
  assert.equal(next(short, 'Australia/Lord_Howe', '2026-10-02T12:00:00Z'), '2026-10-06T01:00:00.000Z');
  // A window wholly inside the hour skipped never shows on the clock: no boundary that night.
  const skipped = [{ weekday: 0, start: '02:10', end: '02:40' }];
  assert.equal(next(skipped, 'America/New_York', '2026-03-08T05:00:00Z'), '2026-03-15T06:10:00.000Z');
  // New York leaves daylight saving on Sunday 2026-11-01 (02:00 EDT -> 01:00 EST): a window of
  // 01:15-01:30 shows twice that night, and opens again at 01:15 EST (06:15Z) once closed at 01:30 EDT.
  const repeated = [{ weekday: 0, start: '01:15', end: '01:30' }];
  assert.equal(next(repeated, 'America/New_York', '2026-11-01T05:30:00Z'), '2026-11-01T06:15:00.000Z');
  assert.equal(next(repeated, 'America/New_York', '2026-11-01T06:15:00Z'), '2026-11-01T06:30:00.000Z');
});
