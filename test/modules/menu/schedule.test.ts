import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isWithin, localClock } from '../../../src/modules/menu/schedule.ts';
import type { MenuSchedule } from '../../../src/modules/menu/types.ts';

const SAO_PAULO = 'America/Sao_Paulo'; // UTC-3, no DST since 2019
const MANAUS = 'America/Manaus'; // UTC-4
const TOKYO = 'Asia/Tokyo'; // UTC+9

// Friday 6 March 2026, 21:00 UTC.
const FRIDAY_EVENING = new Date('2026-03-06T21:00:00Z');

describe('localClock', () => {
  test('the same instant gives each time zone its own weekday and minute', () => {
    assert.deepEqual(localClock(FRIDAY_EVENING, SAO_PAULO), { weekday: 5, minutes: 18 * 60 });
    assert.deepEqual(localClock(FRIDAY_EVENING, MANAUS), { weekday: 5, minutes: 17 * 60 });
    assert.deepEqual(localClock(FRIDAY_EVENING, TOKYO), { weekday: 6, minutes: 6 * 60 });
  });

  test('Sao Paulo stays at UTC-3 in the former summer time', () => {
    assert.deepEqual(localClock(new Date('2026-01-15T12:00:00Z'), SAO_PAULO), {
      weekday: 4,
      minutes: 9 * 60,
    });
  });

  test('seconds are dropped, not rounded', () => {
    assert.deepEqual(localClock(new Date('2026-03-06T21:00:59.999Z'), SAO_PAULO), {
      weekday: 5,
      minutes: 1080,
    });
  });

  test('the local weekday turns at local midnight, not at UTC midnight', () => {
    assert.deepEqual(localClock(new Date('2026-03-08T02:59:00Z'), SAO_PAULO), { weekday: 6, minutes: 1439 });
    assert.deepEqual(localClock(new Date('2026-03-08T03:00:00Z'), SAO_PAULO), { weekday: 0, minutes: 0 });
    assert.deepEqual(localClock(new Date('2026-03-07T14:59:00Z'), TOKYO), { weekday: 6, minutes: 1439 });
    assert.deepEqual(localClock(new Date('2026-03-07T15:00:00Z'), TOKYO), { weekday: 0, minutes: 0 });
  });

  test('midnight is minute 0, never hour 24', () => {
    assert.deepEqual(localClock(new Date('2026-03-06T00:00:00Z'), 'UTC'), { weekday: 5, minutes: 0 });
  });
});

describe('isWithin', () => {
  const dinner: MenuSchedule[] = [{ weekday: 5, start: '18:00', end: '23:30' }];

  test('an empty schedule is always open', () => {
    assert.equal(isWithin([], { weekday: 3, minutes: 4 * 60 }), true);
  });

  test('the start minute is inside and the end minute is outside', () => {
    assert.equal(isWithin(dinner, { weekday: 5, minutes: 18 * 60 - 1 }), false);
    assert.equal(isWithin(dinner, { weekday: 5, minutes: 18 * 60 }), true);
    assert.equal(isWithin(dinner, { weekday: 5, minutes: 23 * 60 + 29 }), true);
    assert.equal(isWithin(dinner, { weekday: 5, minutes: 23 * 60 + 30 }), false);
  });

  test('a window only opens on its own weekday', () => {
    assert.equal(isWithin(dinner, { weekday: 4, minutes: 19 * 60 }), false);
    assert.equal(isWithin(dinner, { weekday: 6, minutes: 19 * 60 }), false);
  });

  test('several windows on one day are each honoured', () => {
    const split: MenuSchedule[] = [
      { weekday: 2, start: '11:30', end: '15:00' },
      { weekday: 2, start: '18:00', end: '22:00' },
    ];
    assert.equal(isWithin(split, { weekday: 2, minutes: 12 * 60 }), true);
    assert.equal(isWithin(split, { weekday: 2, minutes: 16 * 60 }), false);
    assert.equal(isWithin(split, { weekday: 2, minutes: 21 * 60 }), true);
  });

  test('times with seconds, as PostgreSQL returns them, are read the same', () => {
    const withSeconds: MenuSchedule[] = [{ weekday: 1, start: '08:00:00', end: '10:00:00' }];
    assert.equal(isWithin(withSeconds, { weekday: 1, minutes: 8 * 60 }), true);
    assert.equal(isWithin(withSeconds, { weekday: 1, minutes: 10 * 60 }), false);
  });

  test('an end of 24:00 keeps the last minute of the day open', () => {
    assert.equal(
      isWithin([{ weekday: 1, start: '22:00', end: '24:00' }], { weekday: 1, minutes: 1439 }),
      true,
    );
  });
});

describe('isWithin at the local clock of a time zone', () => {
  const isWithinSchedules = (schedules: MenuSchedule[], at: Date, timeZone: string) =>
    isWithin(schedules, localClock(at, timeZone));

  test('one schedule read in three time zones at the same instant', () => {
    const earlyDinner: MenuSchedule[] = [{ weekday: 5, start: '17:30', end: '18:30' }];
    assert.equal(isWithinSchedules(earlyDinner, FRIDAY_EVENING, SAO_PAULO), true);
    assert.equal(isWithinSchedules(earlyDinner, FRIDAY_EVENING, MANAUS), false);
    assert.equal(isWithinSchedules(earlyDinner, FRIDAY_EVENING, TOKYO), false);
    const breakfast: MenuSchedule[] = [{ weekday: 6, start: '06:00', end: '10:00' }];
    assert.equal(isWithinSchedules(breakfast, FRIDAY_EVENING, TOKYO), true);
  });

  test('a window across midnight, given as two windows, covers both sides of midnight', () => {
    const lateNight: MenuSchedule[] = [
      { weekday: 5, start: '22:00', end: '24:00' },
      { weekday: 6, start: '00:00', end: '02:00' },
    ];
    const at = (iso: string) => isWithinSchedules(lateNight, new Date(iso), SAO_PAULO);
    assert.equal(at('2026-03-07T00:59:00Z'), false); // Friday 21:59
    assert.equal(at('2026-03-07T01:00:00Z'), true); // Friday 22:00
    assert.equal(at('2026-03-07T02:59:00Z'), true); // Friday 23:59
    assert.equal(at('2026-03-07T03:00:00Z'), true); // Saturday 00:00
    assert.equal(at('2026-03-07T04:59:00Z'), true); // Saturday 01:59
    assert.equal(at('2026-03-07T05:00:00Z'), false); // Saturday 02:00
    assert.equal(at('2026-03-06T03:30:00Z'), false); // Friday 00:30: the Saturday window only
  });

  test('a restaurant schedule follows the local weekday when UTC is already on the next day', () => {
    const saturdayNight: MenuSchedule[] = [{ weekday: 6, start: '20:00', end: '23:00' }];
    // Sunday 01:00 UTC is Saturday 22:00 in Sao Paulo.
    assert.equal(isWithinSchedules(saturdayNight, new Date('2026-03-08T01:00:00Z'), SAO_PAULO), true);
    assert.equal(isWithinSchedules(saturdayNight, new Date('2026-03-08T01:00:00Z'), 'UTC'), false);
  });
});
