/** Parameters a route takes from its path, already URL-decoded. */
export type RouteParams = Readonly<Record<string, string>>;

const REGEX_SPECIALS = /[.*+?^${}()|[\]\\]/g;

/**
 * The matcher of a route's path (query removed) from its template: each `{name}` takes one URL-encoded
 * segment as the parameter `name`, the rest is literal, and a trailing slash is optional, as Upstash's
 * endpoints take both.
 */
export function matchPath(template: string): (path: string) => RouteParams | undefined {
  const names: string[] = [];
  const source = template.replace(/\{(\w+)\}|[^{]+/g, (part, name: string | undefined) => {
    if (name === undefined) return part.replace(REGEX_SPECIALS, '\\$&');
    names.push(name);
    return '([^/]+)';
  });
  const pattern = new RegExp(`^${source}/?$`);
  return (path) => {
    const m = pattern.exec(path);
    if (!m) return undefined;
    try {
      return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(m[i + 1] ?? '')]));
    } catch {
      // A malformed escape names nothing; the path then matches no route and answers 404.
      return undefined;
    }
  };
}
