export { DEFAULT_OUTBOUND_DENY, findRange, parseAddress, parseCidr, parseCidrList, type CidrRange } from './cidr.js';
export { OutboundPolicy, OutboundRefusedError, type GuardedSocketOptions, type OutboundRules } from './policy.js';
export { CREDENTIALS_REFUSED, FRAGMENT_REFUSED, withoutCredentials, withoutFragment } from './url.js';
export { dial, type DialFailure, type DialOptions, type DialOutcome, type Dialling } from './dialer.js';
