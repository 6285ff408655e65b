import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { arrayBody, parseEntriesInSlices, responseFailure } from './schema.js';

// An address range as QStash's list spells it (`3.125.136.186/32`): digits, dots (or an IPv6
// address's hex and colons) and an optional prefix length. Anything else is not a range: a changed
// API, loud. Short, so that a label made of it stays one.
const range = z
  .string()
  .max(64, 'expected an address range (CIDR)')
  .regex(/^[0-9A-Fa-f.:]+(\/[0-9]{1,3})?$/, 'expected an address range (CIDR)');

/**
 * Parses the list of QStash's outgoing address ranges (a bare array of CIDR strings), in order and
 * without repeats; throws `invalid_response` on any other shape, never quoting a value.
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
