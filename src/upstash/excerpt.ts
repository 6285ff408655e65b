/**
 * The most of a URL or an upstream value an error message quotes: enough to recognise a request
 * (base URL, path, the start of its query), never the whole of a 200,000-character cursor or name.
 */
export const MAX_EXCERPT_LENGTH = 300;

/**
 * `text` as a log line or an error message may quote it: whole when it is at most `max` characters
 * (UTF-16 code units) long, else its first `max` and a note of how long it was. The one rule for
 * every URL and upstream value the exporter quotes (errors.ts, the logger's fields), so a huge value
 * costs a bounded line, not its size, per failed poll.
 */
export function excerpt(text: string, max = MAX_EXCERPT_LENGTH): string {
  if (text.length <= max) return text;
  // Not between the two halves of a surrogate pair: a lone half is not text.
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}
