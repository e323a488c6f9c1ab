import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { databaseFor, TEST_DATABASE_URL } from './postgres.js';

/** The files under dir whose bytes contain needle (as UTF-8): the database, its WAL, the key file... */
export function filesContaining(dir: string, needle: string): string[] {
  const wanted = Buffer.from(needle, 'utf8');
  const hits: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const file = path.join(d, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (readFileSync(file).includes(wanted)) hits.push(path.relative(dir, file));
    }
  };
  walk(dir);
  return hits;
}

/**
 * Where a gateway keeps needle in clear: files of its data directory and, when the tests run on
 * PostgreSQL, the tables of its database (as `table:<name>`).
 */
export async function storedContaining(dataDir: string, needle: string): Promise<string[]> {
  const hits = filesContaining(dataDir, needle);
  if (!TEST_DATABASE_URL) return hits;
  const client = new pg.Client({ connectionString: (await databaseFor(dataDir)).url });
  await client.connect();
  try {
    const tables = await client.query<{ tablename: string }>("select tablename from pg_tables where schemaname = 'public'");
    for (const { tablename } of tables.rows) {
      const rows = await client.query(`select * from "${tablename}"`);
      if (JSON.stringify(rows.rows).includes(needle)) hits.push(`table:${tablename}`);
    }
  } finally {
    await client.end();
  }
  return hits;
}
