import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ALWAYS_REFUSED, DEFAULT_OUTBOUND_DENY, findRange, parseAddress, parseCidr, type CidrRange } from './cidr.js';

const UNSPECIFIED = ALWAYS_REFUSED.map(parseCidr);

/** A connection the outbound rules refused; its message is what the delivery row or the status shows. */
export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';

  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export interface OutboundRules {
  /** Added to DEFAULT_OUTBOUND_DENY. */
  deny: readonly CidrRange[];
  /** Wins over every deny range, the defaults included. */
  allow: readonly CidrRange[];
}

/** What a client passes to http.request, ws or tls.connect so that only allowed addresses are dialled. */
export interface GuardedSocketOptions {
  lookup: LookupFunction;
}

/**
 * Which addresses webhooks, agent streams and the assistant's model may connect to (OUTBOUND_DENY,
 * OUTBOUND_ALLOW). The check runs on the address actually dialled: Node resolves a name through
 * `lookup` and connects to an address literal without it, so `socketOptions()` covers both. The
 * URL parser has already turned odd IPv4 spellings (0x7f000001, 127.1) into dotted decimal, and
 * IPv4-mapped IPv6 addresses are matched as the IPv4 address they carry.
 */
export class OutboundPolicy {
  private readonly deny: readonly CidrRange[];
  private readonly allow: readonly CidrRange[];

  constructor(rules: OutboundRules = { deny: [], allow: [] }) {
    this.deny = [...DEFAULT_OUTBOUND_DENY.map(parseCidr), ...rules.deny];
    this.allow = rules.allow;
  }

  /** Why `address` may not be dialled, or null when it may. */
  refusal(address: string): string | null {
    const parsed = parseAddress(address);
    if (!parsed) return `${address} is not an IP address`;
    if (findRange(parsed, UNSPECIFIED)) return `${parsed.toString()} is an unspecified address, which reaches the gateway's own host: it is always refused (use 127.0.0.1 or ::1)`;
    const denied = findRange(parsed, this.deny);
    if (!denied || findRange(parsed, this.allow)) return null;
    return `${parsed.toString()} is in ${denied.text}, which OUTBOUND_DENY refuses (OUTBOUND_ALLOW can open it)`;
  }

  /**
   * Options for a connection to `url`. Throws OutboundRefusedError when the URL's host is a refused
   * address literal; a name is checked once resolved, by the returned `lookup`.
   */
  socketOptions(url: string | URL): GuardedSocketOptions {
    const { hostname } = typeof url === 'string' ? new URL(url) : url;
    const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (isIP(host)) {
      const why = this.refusal(host);
      if (why) throw new OutboundRefusedError(`refused to connect to ${host}: ${why}`);
    }
    return { lookup: this.lookup };
  }

  /** dns.lookup, less the refused addresses; an error when none is left. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const all: LookupAllOptions = { ...options, all: true };
    dnsLookup(hostname, all, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const allowed = addresses.filter((a) => this.refusal(a.address) === null);
      const first = allowed[0];
      if (!first) {
        const why = addresses.map((a) => this.refusal(a.address)).join('; ');
        return callback(new OutboundRefusedError(`refused to connect to ${hostname}: ${why || 'it resolves to no address'}`), '', 0);
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}
