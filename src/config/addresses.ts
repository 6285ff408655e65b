// Checks of the addresses in the configuration: where we listen, and where Upstash is.

/** An error message for a bad `HOST:PORT`, or undefined when it is fine. */
export function checkListenAddress(address: string): string | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*):([0-9]{1,5})$/.exec(address);
  if (match === null || Number(match[2]) > 65_535) {
    return 'must be HOST:PORT, :PORT or [IPv6]:PORT with a port from 0 to 65535';
  }
  return undefined;
}

/** An error message for a bad Upstash base URL, or undefined when it is fine. */
export function checkBaseUrl(text: string): string | undefined {
  const parsed = URL.canParse(text) ? new URL(text) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return 'must be an absolute http:// or https:// URL';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain credentials';
  // A query would end up in front of the API path, and may hold a secret that summaries would print.
  if (parsed.search !== '' || parsed.hash !== '') return 'must not have a query or fragment';
  return undefined;
}
