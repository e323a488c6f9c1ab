import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { parseCidr, parseCidrList } from './cidr.js';
import { OutboundPolicy, OutboundRefusedError } from './policy.js';

const policy = (deny = '', allow = '') => new OutboundPolicy({ deny: parseCidrList(deny), allow: parseCidrList(allow) });

function resolve(p: OutboundPolicy, host: string, all: boolean): Promise<string | LookupAddress[]> {
  return new Promise((done, fail) => p.lookup(host, { all }, (err, address) => (err ? fail(err) : done(address))));
}

describe('parseCidr', () => {
  it('reads ranges and single addresses in plain notation', () => {
    expect(parseCidr('10.0.0.0/8').text).toBe('10.0.0.0/8');
    expect(parseCidr(' fd00::/8 ').text).toBe('fd00::/8');
    expect(parseCidr('192.168.1.20').text).toBe('192.168.1.20/32');
    expect(parseCidr('::1').text).toBe('::1/128');
    expect(parseCidrList('10.0.0.0/8, 172.16.0.0/12,').map((c) => c.text)).toEqual(['10.0.0.0/8', '172.16.0.0/12']);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x', 'localhost', '0x7f000001', '127.1', '010.0.0.1', ''])('refuses %j', (text) => {
    expect(() => parseCidr(text)).toThrow(/address range|prefix length/);
  });
});

describe('OutboundPolicy', () => {
  it('refuses link-local and cloud metadata addresses by default, in either family', () => {
    const p = policy();
    for (const address of ['169.254.169.254', '169.254.170.2', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', 'fd00:ec2::254', 'fe80::1', '100.100.100.200', '64:ff9b::a9fe:a9fe']) {
      expect(p.refusal(address), address).toMatch(/OUTBOUND_DENY/);
    }
    expect(p.refusal('::ffff:169.254.169.254')).toContain('169.254.169.254 is in 169.254.0.0/16');
  });

  it('refuses the metadata services of GCP, AWS EKS and Scaleway over IPv6 by default', () => {
    const p = policy();
    for (const [address, range] of [['fd20:ce::254', 'fd20:ce::254/128'], ['fd00:ec2::23', 'fd00:ec2::23/128'], ['fd00:42::42', 'fd00:42::42/128']]) {
      expect(p.refusal(address!), address).toContain(`is in ${range}, which OUTBOUND_DENY refuses`);
    }
  });

  it('always refuses the unspecified addresses, which reach the gateway\'s own host, whatever OUTBOUND_ALLOW says', () => {
    const p = policy('', '0.0.0.0/0,::/0');
    for (const address of ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0']) {
      expect(p.refusal(address), address).toMatch(/unspecified address.*always refused/);
    }
    for (const url of ['http://0.0.0.0:8080/', 'http://0:8080/', 'http://[::]:8080/', 'http://[::ffff:0.0.0.0]/', 'ws://0/']) {
      expect(() => p.socketOptions(url), url).toThrow(OutboundRefusedError);
    }
    expect(p.refusal('127.0.0.1')).toBeNull();
  });

  it('lets loopback, private and public addresses through by default', () => {
    const p = policy();
    for (const address of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.2', 'fd12::1', '100.100.100.201', '8.8.8.8', '2001:db8::1']) {
      expect(p.refusal(address), address).toBeNull();
    }
  });

  it('adds OUTBOUND_DENY to the defaults, and OUTBOUND_ALLOW wins over both', () => {
    const p = policy('10.0.0.0/8', '10.1.0.0/16,169.254.169.254');
    expect(p.refusal('10.2.3.4')).toMatch(/10\.0\.0\.0\/8/);
    expect(p.refusal('::ffff:10.2.3.4')).toMatch(/10\.0\.0\.0\/8/);
    expect(p.refusal('10.1.2.3')).toBeNull();
    expect(p.refusal('169.254.169.254')).toBeNull();
    expect(p.refusal('169.254.169.253')).toMatch(/169\.254\.0\.0\/16/);
  });

  it('checks an address literal in any spelling the URL parser accepts, before connecting', () => {
    const p = policy('127.0.0.0/8');
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://0xa9fea9fe/',
      'http://2852039166/',
      'http://169.254.43518/',
      'http://[::ffff:169.254.169.254]/',
      'ws://[fd00:ec2::254]:80/',
      'wss://[fe80::1]/',
      'http://0x7f000001:8080/',
      'http://127.1/',
      'http://[::ffff:7f00:1]/',
    ]) {
      expect(() => p.socketOptions(url), url).toThrow(OutboundRefusedError);
    }
    expect(p.socketOptions('http://10.0.0.1/').lookup).toBe(p.lookup);
    expect(() => policy().socketOptions('http://127.1/')).not.toThrow();
  });

  it('checks a name on the addresses it resolves to', async () => {
    const open = policy();
    expect(await resolve(open, 'localhost', false)).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(await resolve(open, '127.0.0.1', true)).toEqual([{ address: '127.0.0.1', family: 4 }]);

    const closed = policy('127.0.0.0/8,::1');
    await expect(resolve(closed, 'localhost', false)).rejects.toThrow(/refused to connect to localhost: 127\.0\.0\.1 is in 127\.0\.0\.0\/8/);
    await expect(resolve(closed, 'localhost', true)).rejects.toBeInstanceOf(OutboundRefusedError);
    // Names the resolver reads as numbers are checked on what it makes of them.
    await expect(resolve(closed, '0x7f.1', false)).rejects.toThrow(/127\.0\.0\.1/);

    const loopback4 = policy('::1');
    expect(await resolve(loopback4, 'localhost', true)).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});
