// The demo's four months: the current month and the three before it, so "open" and "paid"
// entries and received notes look current whenever the demo is loaded.
export type Period = { today: string; months: string[] };

export function demoPeriod(today: Date): Period {
  const months: string[] = [];
  for (let back = 3; back >= 0; back--) {
    const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - back, 1));
    months.push(d.toISOString().slice(0, 7));
  }
  return { today: today.toISOString().slice(0, 10), months };
}

function daysIn(month: string): number {
  const [year, m] = month.split('-').map(Number);
  return new Date(Date.UTC(year, m, 0)).getUTCDate();
}

export function dayOf(month: string, day: number): string {
  return `${month}-${String(Math.min(day, daysIn(month))).padStart(2, '0')}`;
}

/** A local time in Brazil (UTC-3) as an instant. */
export function brazilInstant(date: string, time: string): string {
  return `${date}T${time}:00-03:00`;
}

export function dayBefore(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
