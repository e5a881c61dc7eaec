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
 * by local minutes and checks each hop with localClock; a hop that would cross a daylight-saving
 * change ends at it (found by halves) and the next one starts from the clock as it shows then, so an
 * hour skipped or repeated needs no offset arithmetic here.
 */
export function nextBoundaryAt(boundaries: Uint16Array, timeZone: string, after: Date): Date | null {
  if (boundaries.length < 2) return null;
  const stretchAt = (ms: number) => scheduleWindow(boundaries, localClock(new Date(ms), timeZone));
  let low = Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS;
  const stretch = stretchAt(low);
  // Each hop reaches the next boundary's local minute or an offset change: a handful of hops,
  // bounded anyway.
  for (let hop = 0; hop < 32; hop++) {
    const clock = localClock(new Date(low), timeZone);
    const from = clock.weekday * 1440 + clock.minutes;
    const step = minutesToNext(boundaries, from);
    let high = low + step * MINUTE_MS;
    // Whether the clock's offset at `ms` is no longer the one at `low` (daylight saving began or ended).
    const shifted = (ms: number) => {
      const at = localClock(new Date(ms), timeZone);
      return (at.weekday * 1440 + at.minutes - from - (ms - low) / MINUTE_MS) % WEEK_MINUTES !== 0;
    };
    // A hop ends at an offset change on its way, the first minute after it found by halves: past it,
    // the clock skips minutes (and may skip past the boundary, or a window shorter than the change)
    // or shows some again (and may enter again a window it left).
    if (shifted(high)) {
      let before = low;
      while (high - before > MINUTE_MS) {
        const middle = before + Math.floor((high - before) / MINUTE_MS / 2) * MINUTE_MS;
        if (shifted(middle)) high = middle;
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
