const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Format Unix milliseconds like Go's `time.Time.String()` in UTC, with the given fraction digits. */
export function formatGoTime(ms: number, fraction = ''): string {
  const d = new Date(ms);
  const date = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  const time = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
  return `${date} ${time}${fraction === '' ? '' : `.${fraction}`} +0000 UTC`;
}
