import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * When VG_TEST_DATABASE_URL names a PostgreSQL server, every test gateway gets a database of its own
 * there (one per data directory, so a restart on the same directory finds its data again).
 */
export const TEST_DATABASE_URL = process.env.VG_TEST_DATABASE_URL || undefined;

/** The cluster's tests (test/cluster) start gateways on PostgreSQL themselves; .ci/run starts one and sets VG_POSTGRES_URL. */
export const CLUSTER_POSTGRES_URL = process.env.VG_POSTGRES_URL || undefined;
export const CLUSTER_SKIP_REASON = 'Cluster tests skipped: they need PostgreSQL (set VG_POSTGRES_URL, as .ci/run does)';

export async function databaseFor(dataDir: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('VG_TEST_DATABASE_URL is not set');
  const name = `vg_${createHash('sha256').update(dataDir).digest('hex').slice(0, 20)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
