import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { findRange, parseAddress, type CidrRange } from '../outbound/index.js';

/**
 * The address a request came from, as the per-client rate limits count it. Behind proxies listed
 * in TRUST_PROXY it is read from `X-Forwarded-For`, right to left: each trusted proxy appended the
 * address it was reached from, so the first address from the right that is not a trusted proxy is
 * the client (what a client wrote into the header itself stays to the left of it and is never
 * read). From anyone else the header is ignored: a client could write any address into it.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: readonly CidrRange[]): string {
  if (peer === undefined) return 'unknown';
  if (!isTrusted(peer, trusted) || forwardedFor === undefined) return canonical(peer);
  const hops = forwardedFor
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i]!;
    // Something a trusted proxy would not write: the chain cannot be read past it.
    if (parseAddress(hop) === null) break;
    client = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return canonical(client);
}

/** `clientAddress` of a request served by @hono/node-server. */
export function requestClient(c: Context, trusted: readonly CidrRange[]): string {
  return clientAddress(getConnInfo(c).remote.address, c.req.header('x-forwarded-for'), trusted);
}

function isTrusted(address: string, trusted: readonly CidrRange[]): boolean {
  if (trusted.length === 0) return false;
  const parsed = parseAddress(address);
  return parsed !== null && findRange(parsed, trusted) !== undefined;
}

/** One spelling per address (IPv4-mapped IPv6 as IPv4), so one client is one key. */
function canonical(address: string): string {
  return parseAddress(address)?.toString() ?? address;
}
