// Go's default time format as Upstash sends it: `2025-08-31 15:12:52.799480932 +0000 UTC`.
// Parsed by hand: Date.parse accepts it on some engines, rejects it on others, and drops
// everything past milliseconds.
const GO_TIME =
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? ([+-])(\d{2})(\d{2})(?: [A-Za-z]{1,5})?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Parses a Go-formatted time into Unix milliseconds (with the sub-millisecond fraction kept as
 * decimals); undefined when the text is not such a time or names an impossible date.
 */
export function parseGoTime(text: string): number | undefined {
  const parts = goTimeParts(text);
  if (parts === undefined) return undefined;
  // `0.` + up to nine digits: the fraction of a second, as milliseconds with decimals.
  return parts.wholeMs + (parts.fraction === '' ? 0 : Number(`0.${parts.fraction}`) * 1000);
}

/**
 * Parses a Go-formatted time into exact Unix nanoseconds, for ordering: a double holding today's
 * Unix milliseconds cannot tell apart times less than about 250 ns apart.
 */
export function parseGoTimeNs(text: string): bigint | undefined {
  const parts = goTimeParts(text);
  if (parts === undefined) return undefined;
  return BigInt(parts.wholeMs) * 1_000_000n + BigInt(parts.fraction.padEnd(9, '0'));
}

function goTimeParts(text: string): { wholeMs: number; fraction: string } | undefined {
  const match = GO_TIME.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, offH, offM] = match as unknown as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string | undefined,
    string,
    string,
    string,
  ];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(offH) > 23 || Number(offM) > 59) return undefined;
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM)) * 60_000;
  const dayMs = daysFromCivil(year, month, day) * 86_400_000;
  return { wholeMs: dayMs + ((hour * 60 + minute) * 60 + second) * 1000 - offsetMs, fraction };
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil). Not Date.UTC: it reads years 0–99 as 1900–1999, so Go's zero time (year 1) would
 * become 1901 and a point of year 0099 would beat one of 1998.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}
