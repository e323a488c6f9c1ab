import { describe, expect, it } from 'vitest';
import { parseCidrList } from '../outbound/index.js';
import { clientAddress } from './client-address.js';

const balancer = parseCidrList('10.0.0.2');
const balancers = parseCidrList('10.0.0.0/24,fd00::/8');

describe('clientAddress', () => {
  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('198.51.100.9', '203.0.113.7', [])).toBe('198.51.100.9');
    expect(clientAddress('10.0.0.2', '203.0.113.7', [])).toBe('10.0.0.2');
  });

  it('is the peer when the peer is not a trusted proxy', () => {
    expect(clientAddress('198.51.100.9', '203.0.113.7', balancer)).toBe('198.51.100.9');
  });

  it('behind a trusted proxy: the address it appended', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.7', balancer)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.2', ' 203.0.113.7 ', balancer)).toBe('203.0.113.7');
  });

  it('never reads what the client wrote itself (left of what the proxy appended)', () => {
    expect(clientAddress('10.0.0.2', '192.0.2.1, 203.0.113.7', balancer)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.2', '10.0.0.2, 203.0.113.7', balancer)).toBe('203.0.113.7');
  });

  it('walks back over a chain of trusted proxies to the first untrusted hop', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.7, 10.0.0.5', balancers)).toBe('203.0.113.7');
    expect(clientAddress('fd00::1', '2001:db8::7, fd00::9', balancers)).toBe('2001:db8::7');
  });

  it('stops at a hop that is not an address, keeping the last it could read', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.7, unknown', balancers)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', 'junk, 10.0.0.5', balancers)).toBe('10.0.0.5');
  });

  it('is the peer behind a trusted proxy that sent no header, and every trusted hop when all are', () => {
    expect(clientAddress('10.0.0.2', undefined, balancer)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '', balancer)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '10.0.0.7', balancers)).toBe('10.0.0.7');
  });

  it('spells one address one way (IPv4-mapped IPv6 as IPv4)', () => {
    expect(clientAddress('::ffff:198.51.100.9', undefined, [])).toBe('198.51.100.9');
    expect(clientAddress('::ffff:10.0.0.2', '::ffff:203.0.113.7', balancer)).toBe('203.0.113.7');
    expect(clientAddress(undefined, '203.0.113.7', balancer)).toBe('unknown');
  });
});
