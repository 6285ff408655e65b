import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { arrayBody, parseEntriesInSlices, responseFailure } from './schema.js';

const NOT_A_RANGE = 'expected an address range (CIDR)';

/**
 * A CIDR in its canonical text (docs/metrics.md, The account's safety), or undefined when `text` is
 * not one: an address node's `isIPv4` or `isIPv6` accepts, written in hex, digits, dots and colons
 * only (no zone), then `/` and a decimal prefix without leading zeros, at most 32 for IPv4 and 128
 * for IPv6. IPv4 comes back as node accepts it (dotted decimal, no leading zeros); IPv6 as RFC 5952
 * writes it. The address is kept whole: bits beyond the prefix are not cleared.
 */
export function canonicalCidr(text: string): string | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefix) || !/^[0-9A-Fa-f.:]+$/.test(address)) return undefined;
  const bits = Number(prefix);
  if (isIPv4(address)) return bits <= 32 ? text : undefined;
  if (isIPv6(address) && bits <= 128) return `${canonicalIpv6(address)}/${prefix}`;
  return undefined;
}

/** Whether `text` is a CIDR ({@link canonicalCidr}), in any spelling. */
export function isCidr(text: string): boolean {
  return canonicalCidr(text) !== undefined;
}

/**
 * An IPv6 address node's `isIPv6` accepted, as RFC 5952 writes it: lowercase hex groups without
 * leading zeros, `::` for the longest run of two or more zero groups (the leftmost of equal runs),
 * and an IPv4-mapped address (`::ffff:0:0/96`) with its last 32 bits in dotted decimal.
 */
function canonicalIpv6(address: string): string {
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return `::ffff:${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  let best = { at: -1, length: 1 };
  for (let at = 0; at < 8;) {
    let length = 0;
    while (at + length < 8 && groups[at + length] === 0) length++;
    if (length > best.length) best = { at, length };
    at += Math.max(length, 1);
  }
  const hex = (part: readonly number[]): string => part.map((group) => group.toString(16)).join(':');
  if (best.at < 0) return hex(groups);
  return `${hex(groups.slice(0, best.at))}::${hex(groups.slice(best.at + best.length))}`;
}

/** The eight 16-bit groups of an IPv6 address node's `isIPv6` accepted (an embedded IPv4 is two). */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = address.indexOf('::');
  if (gap < 0) return parse(address);
  const head = parse(address.slice(0, gap));
  const tail = parse(address.slice(gap + 2));
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

// A range as QStash's list spells it (`3.125.136.186/32`), made canonical, so that one range is one
// `cidr` series whatever its spelling; anything else is not a range: a changed API, loud. Short, so
// that a label made of it stays one.
const range = z
  .string()
  .max(64, NOT_A_RANGE)
  .transform((text, context) => {
    const cidr = canonicalCidr(text);
    if (cidr === undefined) context.addIssue({ code: 'custom', message: NOT_A_RANGE });
    return cidr ?? z.NEVER;
  });

/**
 * Parses the list of QStash's outgoing address ranges (a bare array of CIDR strings), each in its
 * canonical text ({@link canonicalCidr}), in order and without repeats; throws `invalid_response` on any other shape or any string that is not a CIDR
 * ({@link isCidr}), never quoting a value.
 */
export async function parseQstashEgressIps(json: unknown, url = 'qstash/ipv4'): Promise<string[]> {
  const fail = responseFailure(url);
  const ranges = await parseEntriesInSlices(arrayBody(json, fail), range, '', fail);
  return [...new Set(ranges)];
}

/**
 * GET `{url}/v2/qstash/ipv4`: the ranges QStash sends its requests from. The reference asks no
 * credential; the entry's is sent anyway, as to every management path.
 */
export async function fetchQstashEgressIps(client: UpstashClient, target: Target): Promise<string[]> {
  const url = `${target.baseUrl}/v2/qstash/ipv4`;
  return parseQstashEgressIps(await client.getJson({ ...target, url }), url);
}
