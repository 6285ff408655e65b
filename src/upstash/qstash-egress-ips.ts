import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { arrayBody, parseEntriesInSlices, responseFailure } from './schema.js';

const NOT_A_RANGE = 'expected an address range (CIDR)';

/**
 * Whether `text` is a CIDR in canonical text (docs/metrics.md, The account's safety): an address
 * node's `isIPv4` or `isIPv6` accepts, written in hex, digits, dots and colons only (no zone), then
 * `/` and a decimal prefix without leading zeros, at most 32 for IPv4 and 128 for IPv6. Host bits
 * beyond the prefix are not checked.
 */
export function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefix) || !/^[0-9A-Fa-f.:]+$/.test(address)) return false;
  const bits = Number(prefix);
  return (isIPv4(address) && bits <= 32) || (isIPv6(address) && bits <= 128);
}

// A range as QStash's list spells it (`3.125.136.186/32`); anything else is not a range: a changed
// API, loud. Short, so that a label made of it stays one.
const range = z.string().max(64, NOT_A_RANGE).refine(isCidr, NOT_A_RANGE);

/**
 * Parses the list of QStash's outgoing address ranges (a bare array of CIDR strings), in order and
 * without repeats; throws `invalid_response` on any other shape or any string that is not a CIDR
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
