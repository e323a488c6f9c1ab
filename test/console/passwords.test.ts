import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/accounts/index.js';

describe('password hashes', () => {
  it('are salted scrypt, in the form scrypt$N$r$p$salt$hash', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
  });

  it('verify the right password only', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('treat Unicode forms of one password alike (NFKC)', async () => {
    const stored = await hashPassword('caf\u00e9 au lait');
    expect(await verifyPassword('cafe\u0301 au lait', stored)).toBe(true);
  });

  it('refuse malformed or abusive stored hashes instead of throwing', async () => {
    for (const stored of ['', 'plain', 'scrypt$1$8$1$AAAA$AAAA', 'scrypt$3000$8$1$c2FsdA==$aGFzaGhhc2hoYXNoaGFzaA==', `scrypt$${2 ** 24}$8$1$c2FsdA==$aGFzaGhhc2hoYXNoaGFzaA==`, 'bcrypt$x']) {
      expect(await verifyPassword('anything', stored), stored).toBe(false);
    }
  });
});
