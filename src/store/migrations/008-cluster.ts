import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Several gateways on one PostgreSQL (docs/cluster.md). On both engines: webhook jobs name the node
 * that holds them (`claimed_by`; null on SQLite, where one process holds them all), and a call
 * remembers that its agent stream was detached, so a node that takes the call over does not open it
 * again. On PostgreSQL only: the nodes, their heartbeats and the hash of the setup token each printed, which node holds each phone's socket,
 * live messages too large for a NOTIFY, and the failures that rate limits count. Liveness is judged
 * by the database's clock (`now()`), so the nodes' own clocks need not agree.
 */
export const cluster =
  (dialect: Dialect) =>
  async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('webhook_jobs').addColumn('claimed_by', 'varchar(40)').execute();
    await db.schema.createIndex('webhook_jobs_call').on('webhook_jobs').columns(['call_id', 'id']).execute();
    await db.schema.alterTable('calls').addColumn('stream_detached_at', 'varchar(32)').execute();
    if (dialect !== 'postgres') return;

    await db.schema.createIndex('webhook_jobs_claimed_by').on('webhook_jobs').column('claimed_by').execute();
    await sql`create table cluster_nodes (
      id varchar(40) primary key,
      url varchar(2048) not null,
      started_at timestamptz not null default now(),
      heartbeat_at timestamptz not null default now(),
      reaped_at timestamptz,
      setup_token_hash varchar(64)
    )`.execute(db);
    await sql`create table phone_connections (
      device_id varchar(40) primary key,
      node_id varchar(40) not null,
      connection_id varchar(40) not null,
      connected_at timestamptz not null default now()
    )`.execute(db);
    await sql`create index phone_connections_node on phone_connections (node_id)`.execute(db);
    await sql`create table cluster_messages (
      id bigserial primary key,
      body text not null,
      at timestamptz not null default now()
    )`.execute(db);
    await sql`create table rate_limit_failures (
      id bigserial primary key,
      scope varchar(40) not null,
      key varchar(400) not null,
      at timestamptz not null default now()
    )`.execute(db);
    await sql`create index rate_limit_failures_key on rate_limit_failures (scope, key, at)`.execute(db);
  };
