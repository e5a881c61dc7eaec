// Which stretch of the week between two schedule boundaries an instant falls in. The menu's
// answer at an instant depends on the catalog, the restaurant's settings and the local weekday
// and minute only through its schedules (start inclusive, end exclusive, in whole minutes): two
// instants in the same stretch get the same menu, so its ETag names the stretch, not the instant.
// The week wraps: the stretch after the last boundary and the one before the first are one.
import type { Catalog } from './catalog.ts';
import { localClock } from './schedule.ts';
import type { MenuClock, MenuSchedule } from './types.ts';

const WEEK_MINUTES = 7 * 24 * 60;

const weekMinute = (weekday: number, time: string) =>
  (weekday * 1440 + Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))) % WEEK_MINUTES;

/** The minutes of the week where one of `lists`' schedules opens or closes, ascending. */
export function scheduleBoundaries(lists: Iterable<readonly MenuSchedule[]>): Uint16Array {
  const found = new Set<number>();
  for (const schedules of lists)
    for (const { weekday, start, end } of schedules) {
      found.add(weekMinute(weekday, start));
      found.add(weekMinute(weekday, end));
    }
  return Uint16Array.from(found).sort();
}

/** The stretch of `clock`: the number of boundaries at or before it, the last one wrapping to 0. */
export function scheduleWindow(boundaries: Uint16Array, clock: MenuClock): number {
  const minute = clock.weekday * 1440 + clock.minutes;
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (boundaries[middle] <= minute) low = middle + 1;
    else high = middle;
  }
  return low === boundaries.length ? 0 : low;
}

const held = new WeakMap<Catalog, Uint16Array>();

/** The catalog's boundaries, found once per catalog (a catalog never changes once assembled). */
export function boundariesOf(catalog: Catalog): Uint16Array {
  let boundaries = held.get(catalog);
  if (!boundaries) {
    boundaries = scheduleBoundaries([
      ...catalog.categories.map((category) => category.schedules),
      ...catalog.products.schedules,
    ]);
    held.set(catalog, boundaries);
  }
  return boundaries;
}

const MINUTE_MS = 60_000;

/** Minutes from the week minute `minute` to the next boundary after it (wrapping the week). */
function minutesToNext(boundaries: Uint16Array, minute: number): number {
  for (const boundary of boundaries) if (boundary > minute) return boundary - minute;
  return boundaries[0] + WEEK_MINUTES - minute;
}

/**
 * The first instant after `after` whose stretch (scheduleWindow at the local clock of `timeZone`)
 * is not that of `after`: the start of the minute where the menu's answer next changes with the
 * time, or null when it never does (fewer than two boundaries). It hops from boundary to boundary
 * by local minutes and checks each hop with localClock, so a daylight-saving change on the way
 * (an hour repeated: the hop lands an hour early and hops again; an hour skipped: it lands an hour
 * past the boundary's local minute, and goes back, by halves, to the first minute whose clock has
 * reached it) needs no offset arithmetic here.
 */
export function nextBoundaryAt(boundaries: Uint16Array, timeZone: string, after: Date): Date | null {
  if (boundaries.length < 2) return null;
  const stretchAt = (ms: number) => scheduleWindow(boundaries, localClock(new Date(ms), timeZone));
  let low = Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS;
  const stretch = stretchAt(low);
  // Each hop reaches the next boundary's local minute, or an hour short of it past a repeated
  // hour: a handful of hops, bounded anyway.
  for (let hop = 0; hop < 32; hop++) {
    const clock = localClock(new Date(low), timeZone);
    const from = clock.weekday * 1440 + clock.minutes;
    const step = minutesToNext(boundaries, from);
    let high = low + step * MINUTE_MS;
    // Local minutes from `low` to `ms`: the elapsed minutes, and the clock's change of offset.
    const localMinutes = (ms: number) => {
      const elapsed = (ms - low) / MINUTE_MS;
      const at = localClock(new Date(ms), timeZone);
      const shift = (at.weekday * 1440 + at.minutes - from - elapsed) % WEEK_MINUTES;
      return elapsed + ((shift + WEEK_MINUTES * 1.5) % WEEK_MINUTES) - WEEK_MINUTES / 2;
    };
    // An hour skipped on the way lands the hop past the boundary's local minute, maybe past a
    // window shorter than the hour and back in the stretch it left: the hop ends instead at the
    // first minute whose clock has reached that boundary.
    if (localMinutes(high) > step) {
      let before = low;
      while (high - before > MINUTE_MS) {
        const middle = before + Math.floor((high - before) / MINUTE_MS / 2) * MINUTE_MS;
        if (localMinutes(middle) >= step) high = middle;
        else before = middle;
      }
    }
    if (stretchAt(high) === stretch) {
      low = high;
      continue;
    }
    // The stretch changed in (low, high]: the first minute of it, by halves.
    let before = low;
    let at = high;
    while (at - before > MINUTE_MS) {
      const middle = before + Math.floor((at - before) / MINUTE_MS / 2) * MINUTE_MS;
      if (stretchAt(middle) === stretch) before = middle;
      else at = middle;
    }
    return new Date(at);
  }
  return null;
}
