import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, databaseFor } from '../helpers/postgres.js';
import { testScope } from '../helpers/phones.js';

const t = testScope();

describe.skipIf(!TEST_DATABASE_URL)('the store on PostgreSQL', () => {
  it('survives the server dropping its idle connections', async () => {
    const g = await t.gateway({ captureLogs: true });
    expect((await g.api('PUT', '/v1/settings', { docsUrl: 'https://docs.example.com' })).status).toBe(200);
    const name = new URL((await databaseFor(g.dataDir)).url).pathname.slice(1);

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }

    // The pool notices, logs it, and serves the next requests on new connections.
    const read = await g.api<{ settings: { docsUrl: string } }>('GET', '/v1/settings');
    expect(read.status).toBe(200);
    expect(read.body.settings.docsUrl).toBe('https://docs.example.com');
    expect(g.logs.some((line) => line.includes('idle PostgreSQL connection failed'))).toBe(true);
  });
});
