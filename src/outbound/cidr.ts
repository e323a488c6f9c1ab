import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** One range of OUTBOUND_DENY or OUTBOUND_ALLOW, kept with the text it is shown as. */
export interface CidrRange {
  text: string;
  range: [IpAddress, number];
}

/**
 * Link-local and cloud metadata addresses: what a webhook, agent or model URL must not reach unless
 * OUTBOUND_ALLOW says so. Loopback and private ranges stay open: agents on the same host or LAN are
 * the normal case for a self-hosted gateway.
 */
export const DEFAULT_OUTBOUND_DENY: readonly string[] = [
  // IPv4 link-local: the metadata service of AWS, GCP, Azure, Oracle and DigitalOcean (169.254.169.254), AWS ECS (169.254.170.2).
  '169.254.0.0/16',
  // IPv6 link-local.
  'fe80::/10',
  // The metadata services over IPv6: AWS (EC2), AWS EKS Pod Identity, GCP, Scaleway.
  'fd00:ec2::254/128',
  'fd00:ec2::23/128',
  'fd20:ce::254/128',
  'fd00:42::42/128',
  // Alibaba Cloud's metadata service.
  '100.100.100.200/32',
  // 169.254.0.0/16 through a NAT64 gateway.
  '64:ff9b::a9fe:0/112',
];

/**
 * The unspecified addresses ("this host"): never a receiver, yet Linux and macOS connect them to
 * the gateway's own host, past a deny rule written for loopback. Refused whatever OUTBOUND_ALLOW
 * says: an agent on the same host is reached as 127.0.0.1 or ::1.
 */
export const ALWAYS_REFUSED: readonly string[] = ['0.0.0.0/8', '::/128'];

/**
 * Parses one range in plain notation (`10.0.0.0/8`, `fd00::/8`, or one address). Other spellings
 * of IPv4 (hexadecimal, octal, fewer than four parts) are refused here: in a setting they are more
 * likely a mistake than a wish, and the resolver, not this parser, normalises what is dialled.
 */
export function parseCidr(text: string): CidrRange {
  const trimmed = text.trim();
  const [address = '', prefix, extra] = trimmed.split('/');
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (extra !== undefined || (!v4 && !ipaddr.IPv6.isValid(address))) {
    throw new Error(`"${trimmed}" is not an address range such as 10.0.0.0/8 or fd00::/8`);
  }
  const parsed = ipaddr.parse(address);
  const max = v4 ? 32 : 128;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  if (!(bits >= 0 && bits <= max)) throw new Error(`"${trimmed}" has a prefix length outside 0-${max}`);
  return { text: `${parsed.toString()}/${bits}`, range: [parsed, bits] };
}

/** A comma-separated list of ranges, as OUTBOUND_DENY and OUTBOUND_ALLOW take them. */
export function parseCidrList(text: string): CidrRange[] {
  return text
    .split(',')
    .filter((part) => part.trim() !== '')
    .map(parseCidr);
}

/** Parses an address as a resolver or a URL parser gave it; IPv4-mapped IPv6 addresses become IPv4. */
export function parseAddress(address: string): IpAddress | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare);
}

/** The first range that holds the address, if any. */
export function findRange(address: IpAddress, ranges: readonly CidrRange[]): CidrRange | undefined {
  return ranges.find(({ range }) => range[0].kind() === address.kind() && address.match(range));
}
