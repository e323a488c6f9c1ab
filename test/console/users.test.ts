import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { consoleClient, OWNER, setupOwner, show, signIn } from './support.js';

const MEMBER = { email: 'member@example.com', password: 'member password' };

describe('console users', () => {
  let g: TestGateway;
  let owner: string;

  beforeAll(async () => {
    g = await startTestGateway();
    owner = await setupOwner(g);
  });
  afterAll(async () => {
    await g.stop();
  });

  it('lets the owner add a user, who can then sign in as a member', async () => {
    const c = consoleClient(g, owner);
    const added = await c('POST', '/v1/users', { email: 'Member@Example.com', password: MEMBER.password });
    expect(added.status, show(added)).toBe(201);
    expect(added.body.user).toMatchObject({ email: MEMBER.email, role: 'member' });
    expect(JSON.stringify(added.body)).not.toContain(MEMBER.password);

    const list = await c('GET', '/v1/users');
    expect(list.body.users.map((u: { email: string; role: string }) => [u.email, u.role])).toEqual([
      [OWNER.email, 'owner'],
      [MEMBER.email, 'member'],
    ]);
    const member = consoleClient(g, await signIn(g, MEMBER));
    expect((await member('GET', '/v1/auth/me')).body.user).toMatchObject({ email: MEMBER.email, role: 'member' });

    const duplicate = await c('POST', '/v1/users', MEMBER);
    expect(duplicate.status, show(duplicate)).toBe(409);
    expect(duplicate.body.error.code).toBe('CONFLICT');
  });

  it('lets only the owner add or remove users (403 for a member)', async () => {
    const member = consoleClient(g, await signIn(g, MEMBER));
    const add = await member('POST', '/v1/users', { email: 'friend@example.com', password: 'friend password' });
    expect(add.status, show(add)).toBe(403);
    expect(add.body.error.code).toBe('FORBIDDEN');
    const users = (await member('GET', '/v1/users')).body.users as Array<{ id: string; email: string }>;
    const ownerId = users.find((u) => u.email === OWNER.email)!.id;
    const memberId = users.find((u) => u.email === MEMBER.email)!.id;
    expect((await member('DELETE', `/v1/users/${ownerId}`)).status).toBe(409);
    const self = await member('DELETE', `/v1/users/${memberId}`);
    expect(self.status, show(self)).toBe(409);
  });

  it('lets only the owner make or revoke API keys, which carry the owner\'s powers (403 for a member)', async () => {
    const member = consoleClient(g, await signIn(g, MEMBER));
    const made = await member('POST', '/v1/api-keys', { name: 'member-key' });
    expect(made.status, show(made)).toBe(403);
    expect(made.body.error.code).toBe('FORBIDDEN');
    const ownerMade = await consoleClient(g, owner)('POST', '/v1/api-keys', { name: 'owner-key' });
    expect(ownerMade.status, show(ownerMade)).toBe(201);
    const revoke = await member('DELETE', `/v1/api-keys/${ownerMade.body.apiKey.id as string}`);
    expect(revoke.status, show(revoke)).toBe(403);
    // A member still sees the list, without any key.
    const list = await member('GET', '/v1/api-keys');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(ownerMade.body.apiKey.key as string);
  });

  it('refuses to remove the owner or oneself with 409, and unknown users with 404', async () => {
    const c = consoleClient(g, owner);
    const users = (await c('GET', '/v1/users')).body.users as Array<{ id: string; role: string }>;
    const me = users.find((u) => u.role === 'owner')!;
    const res = await c('DELETE', `/v1/users/${me.id}`);
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect((await c('DELETE', '/v1/users/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const viaKey = await g.api('DELETE', `/v1/users/${me.id}`);
    expect(viaKey.status, show(viaKey)).toBe(409);
  });

  it('removes a user and ends their sessions at once', async () => {
    const memberCookie = await signIn(g, MEMBER);
    const member = consoleClient(g, memberCookie);
    expect((await member('GET', '/v1/settings')).status).toBe(200);
    const c = consoleClient(g, owner);
    const users = (await c('GET', '/v1/users')).body.users as Array<{ id: string; email: string }>;
    const id = users.find((u) => u.email === MEMBER.email)!.id;
    const removed = await c('DELETE', `/v1/users/${id}`);
    expect(removed.status, show(removed)).toBe(204);
    expect((await member('GET', '/v1/settings')).status).toBe(401);
    expect((await consoleClient(g)('POST', '/v1/auth/login', MEMBER)).status).toBe(401);
    expect((await c('GET', '/v1/users')).body.users).toHaveLength(1);
  });

  it('lets an API key manage users too', async () => {
    const added = await g.api('POST', '/v1/users', { email: 'ops@example.com', password: 'ops password' });
    expect(added.status, show(added)).toBe(201);
    const removed = await g.api('DELETE', `/v1/users/${(added.body as { user: { id: string } }).user.id}`);
    expect(removed.status, show(removed)).toBe(204);
  });
});
