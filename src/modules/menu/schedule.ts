import type { MenuClock, MenuSchedule } from './types.ts';

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

// Building a DateTimeFormat is far slower than using one; one per time zone is kept for the process.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local weekday (0 = Sunday) and minute of the day of `at` in an IANA time zone. */
export function localClock(at: Date, timeZone: string): MenuClock {
  let weekday = -1;
  let hour = 0;
  let minute = 0;
  for (const part of formatterFor(timeZone).formatToParts(at)) {
    if (part.type === 'weekday') weekday = WEEKDAYS[part.value];
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { weekday, minutes: hour * 60 + minute };
}

/** 'HH:MM' or 'HH:MM:SS' -> minute of the day; '24:00' gives 1440, a window up to midnight. */
function toMinutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** An empty list means always open; start is inclusive, end exclusive. */
export function isWithin(schedules: readonly MenuSchedule[], clock: MenuClock): boolean {
  if (schedules.length === 0) return true;
  for (const window of schedules) {
    if (window.weekday !== clock.weekday) continue;
    if (clock.minutes >= toMinutes(window.start) && clock.minutes < toMinutes(window.end)) return true;
  }
  return false;
}
