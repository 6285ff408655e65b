/** An error message for a bad `HOST:PORT`, or undefined when it is fine. */
export function checkListenAddress(address: string): string | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*):([0-9]{1,5})$/.exec(address);
  if (match === null || Number(match[2]) > 65_535) {
    return 'must be HOST:PORT, :PORT or [IPv6]:PORT with a port from 0 to 65535';
  }
  return undefined;
}
