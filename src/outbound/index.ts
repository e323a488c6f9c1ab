export { DEFAULT_OUTBOUND_DENY, parseCidr, parseCidrList, type CidrRange } from './cidr.js';
export { OutboundPolicy, OutboundRefusedError, type GuardedSocketOptions, type OutboundRules } from './policy.js';
export { CREDENTIALS_REFUSED, FRAGMENT_REFUSED, withoutCredentials, withoutFragment } from './url.js';
