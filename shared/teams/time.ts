// Calendar arithmetic in a team's time zone with Intl alone (no date library). Calendar dates are
// 'YYYY-MM-DD' strings, instants are epoch milliseconds; a local wall time that does not exist (a
// DST gap) moves forward by the gap, and one that exists twice (a DST overlap) is the earlier instant.
export const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
const formatter = (timeZone: string) => {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
};

/** The wall-clock reading in the zone, as if it were UTC (ms), at whole seconds. */
const wallClock = (instant: number, timeZone: string): number => {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instant)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
};

const offsetAt = (instant: number, timeZone: string) =>
  wallClock(Math.floor(instant / 1000) * 1000, timeZone) - Math.floor(instant / 1000) * 1000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const dateOfUtc = (ms: number) => {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
};

const utcOfDate = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** The calendar date an instant falls on in the zone. */
export const localDate = (instant: number, timeZone: string): string =>
  dateOfUtc(wallClock(instant, timeZone));

/** The instant a local wall time ('HH:MM') of a date happens in the zone. */
export function zonedInstant(date: string, time: string, timeZone: string): number {
  const [hour, minute] = time.split(':').map(Number);
  return instantOfWall(utcOfDate(date) + (hour! * 60 + minute!) * 60_000, timeZone);
}

/** The instant of a wall-clock reading (ms, as if it were UTC) in the zone. */
function instantOfWall(wall: number, timeZone: string): number {
  // The offset in force a day before and a day after: one of them is the offset at that wall time.
  const candidates = [offsetAt(wall - DAY_MS, timeZone), offsetAt(wall + DAY_MS, timeZone)]
    .map((offset) => wall - offset)
    .filter((instant) => instant + offsetAt(instant, timeZone) === wall)
    .sort((a, b) => a - b);
  // No candidate: the wall time is in a gap; the earlier offset lands just after it.
  return candidates[0] ?? wall - offsetAt(wall - DAY_MS, timeZone);
}

/** The first instant of a local date (midnight, or the end of a DST gap at midnight). */
export const startOfDay = (date: string, timeZone: string) => zonedInstant(date, '00:00', timeZone);

/** Whether the zone has the date at all: Samoa skipped 30 December 2011 when it crossed the date line. */
export const dayExists = (date: string, timeZone: string) =>
  localDate(startOfDay(date, timeZone), timeZone) === date;

export const addDays = (date: string, days: number) => dateOfUtc(utcOfDate(date) + days * DAY_MS);

/** Whole days from `from` to `to` (calendar dates, so DST never makes a day 23 or 25 hours here). */
export const daysBetween = (from: string, to: string) =>
  Math.round((utcOfDate(to) - utcOfDate(from)) / DAY_MS);

/** ISO weekday: Monday 1 … Sunday 7. */
export const isoWeekday = (date: string) => ((new Date(utcOfDate(date)).getUTCDay() + 6) % 7) + 1;

/** Monday of the ISO week holding the date. */
export const weekStart = (date: string) => addDays(date, 1 - isoWeekday(date));

export const monthStart = (date: string) => `${date.slice(0, 7)}-01`;

/** The first day of the next month. */
export const nextMonthStart = (date: string) => {
  const d = new Date(utcOfDate(monthStart(date)));
  return dateOfUtc(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
};

/**
 * The end of the paid period an instant falls in, for a monthly subscription that began at
 * `hiredAt`: the first monthly anniversary strictly after it, in the team's zone. Anniversaries keep
 * the local hiring day of the month, clamped to the month's length (hired on the 31st renews on
 * 30 April, 28/29 February), and its local time of day (through a DST gap forward, in an overlap the
 * earlier instant). The first paid period is the month after `hiredAt`, so the earliest end is one
 * month after hiring.
 */
export function paidPeriodEnd(hiredAt: string, at: string, timeZone: string): string {
  const hiredMs = Date.parse(hiredAt);
  const instant = Date.parse(at);
  // The hiring reading in the zone, with the milliseconds the formatter leaves out.
  const hired = new Date(wallClock(hiredMs, timeZone) + (((hiredMs % 1000) + 1000) % 1000));
  const anniversary = (months: number) => {
    const year = hired.getUTCFullYear();
    const month = hired.getUTCMonth() + months;
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    const wall = Date.UTC(
      year,
      month,
      Math.min(hired.getUTCDate(), lastDay),
      hired.getUTCHours(),
      hired.getUTCMinutes(),
      hired.getUTCSeconds(),
      hired.getUTCMilliseconds(),
    );
    return instantOfWall(wall, timeZone);
  };
  // Start a month short of the local calendar difference, then step to the first anniversary after `at`.
  const target = new Date(wallClock(instant, timeZone));
  let months = Math.max(
    1,
    (target.getUTCFullYear() - hired.getUTCFullYear()) * 12 + target.getUTCMonth() - hired.getUTCMonth() - 1,
  );
  while (anniversary(months) <= instant) months++;
  return new Date(anniversary(months)).toISOString();
}
