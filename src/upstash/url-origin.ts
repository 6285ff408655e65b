// A URL's origin, as `new URL(text).origin` gives it, cached by its `scheme://authority` head for
// the QStash log events' destinations: `new URL` per event was an eighth of reading a window
// (BENCHMARKS.md, "The event window, read by hand"). What follows the head cannot change the origin; only
// heads the WHATWG parser takes as they are are cached (no `@`, where a password goes, no `%`, whitespace,
// control characters or `\`, plain lower-case `http://` or `https://`); the rest take `new URL`.

/** Heads cached at most: more distinct destinations than this in a window only cost `new URL` again. */
export const ORIGIN_CACHE_SIZE = 512;

/** The longest head cached, in UTF-16 code units (a host is at most 253 characters, a port 5). */
const MAX_HEAD = 300;

/**
 * The heads cached last, checked first by `startsWith` (no slice, no hashing): a window's events go
 * to a handful of destinations. A head here was checked by {@link cacheableHead}, and a text that
 * starts with it and ends it there has that very head.
 */
const recent: { head: string; origin: string }[] = [];
const RECENT = 8;

/** head → origin (null: the head is no http(s) URL's), oldest first. */
const cache = new Map<string, string | null>();

/**
 * A URL's origin, or undefined when it is no http(s) URL: the path, query, fragment and user info
 * (where tokens and signatures live) are dropped here, at parsing, so that no object of ours holds them.
 */
export function originOf(text: string): string | undefined {
  for (const seen of recent)
    if (text.startsWith(seen.head) && endsHead(text, seen.head.length)) return seen.origin;
  const head = cacheableHead(text);
  if (head === undefined) return slowOrigin(text);
  const cached = cache.get(head);
  if (cached !== undefined) return cached ?? undefined;
  const origin = slowOrigin(text);
  if (cache.size >= ORIGIN_CACHE_SIZE)
    for (const oldest of cache.keys()) {
      cache.delete(oldest);
      break;
    }
  // A copy, not the slice: a sliced string keeps its parent (the whole URL, query and all) alive.
  const copy = Buffer.from(head, 'utf16le').toString('utf16le');
  cache.set(copy, origin ?? null);
  if (origin !== undefined) {
    recent.unshift({ head: copy, origin });
    if (recent.length > RECENT) recent.pop();
  }
  return origin;
}

/** Every head held now, in the cache or among the recent ones (for tests: none may hold a secret). */
export function cachedOriginHeads(): string[] {
  return [...new Set([...cache.keys(), ...recent.map((seen) => seen.head)])];
}

function slowOrigin(text: string): string | undefined {
  const url = parseUrl(text);
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:')
    ? url.origin
    : undefined;
}

/** `text` as a URL, or undefined: one parse (canParse and then new URL would be two, per event). */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Whether the head of `text` ends at `at`: the text ends there, or its path, query or fragment starts. */
function endsHead(text: string, at: number): boolean {
  if (at === text.length) return true;
  const code = text.charCodeAt(at);
  return code === SLASH || code === QUESTION || code === HASH;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const HASH = 0x23;

/**
 * `scheme://authority` of `text` when its origin may be cached by it, else undefined: the scheme is
 * `http` or `https` exactly, the authority is not empty, and it holds no character the parser would
 * rewrite or that may carry a secret (see above).
 */
function cacheableHead(text: string): string | undefined {
  const start = text.startsWith('https://') ? 8 : text.startsWith('http://') ? 7 : -1;
  if (start < 0) return undefined;
  let end = start;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (code === SLASH || code === QUESTION || code === HASH) break;
    // Control characters and space (≤ 0x20), DEL, `%`, `@`, `\`.
    if (code <= 0x20 || code === 0x7f || code === 0x25 || code === 0x40 || code === 0x5c) return undefined;
    if (end - start >= MAX_HEAD) return undefined;
  }
  return end === start ? undefined : text.slice(0, end);
}
