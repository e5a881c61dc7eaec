// Schedule windows: weekday 0 (Sunday) to 6, `HH:MM` start inclusive and end exclusive, start
// before end; `24:00` ends a window at midnight, and one crossing midnight is given as two windows.
import { arrayOf, type Check, integer } from './fields.ts';
import { FieldProblem } from './issues.ts';
import { nested, required } from './record.ts';

type ScheduleWindow = { weekday: number; start: string; end: string };

const time =
  (pattern: RegExp, range: string): Check<string> =>
  (value) => {
    if (typeof value !== 'string' || !pattern.test(value))
      throw new FieldProblem(`must be HH:MM from ${range}`);
    return value;
  };

const window = nested({
  weekday: required(integer(0, 6)),
  start: required(time(/^([01]\d|2[0-3]):[0-5]\d$/, '00:00 to 23:59')),
  end: required(time(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, '00:01 to 24:00')),
});

export const schedules: Check<ScheduleWindow[]> = arrayOf((value) => {
  const w = window(value) as ScheduleWindow;
  // Both are zero-padded HH:MM, so text order is time order.
  if (w.start >= w.end) throw new FieldProblem('must be after start', '.end');
  return w;
});
