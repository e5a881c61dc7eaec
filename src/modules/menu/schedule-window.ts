// Which stretch of the week between two schedule boundaries an instant falls in. The menu's
// answer at an instant depends on the catalog, the restaurant's settings and the local weekday
// and minute only through its schedules (start inclusive, end exclusive, in whole minutes): two
// instants in the same stretch get the same menu, so its ETag names the stretch, not the instant.
// The week wraps: the stretch after the last boundary and the one before the first are one.
import type { Catalog } from './catalog.ts';
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
