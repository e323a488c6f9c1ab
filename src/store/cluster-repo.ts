import { sql } from 'kysely';
import type { Db } from './database.js';

/** A node of the cluster that answers its heartbeat. */
export interface NodeRow {
  id: string;
  url: string;
}

const ms = (value: number) => sql`(${Math.round(value)}::bigint * interval '1 millisecond')`;

/** Live nodes: not reaped, heartbeat younger than the lease. */
const liveNodes = (leaseMs: number) => sql`select id, url from cluster_nodes where reaped_at is null and heartbeat_at > now() - ${ms(leaseMs)}`;

/**
 * The cluster's own tables (PostgreSQL only, migration 008): the nodes and their heartbeats, which
 * node holds each phone's socket, live messages too large for a NOTIFY, and the failures rate limits
 * count. Every time is the database's (`now()`), so nodes whose clocks differ still agree.
 */
export class ClusterRepo {
  constructor(private readonly db: Db) {}

  async register(node: NodeRow): Promise<void> {
    await sql`insert into cluster_nodes (id, url) values (${node.id}, ${node.url})`.execute(this.db);
  }

  /** Renews the node's lease; false once another node has declared it dead (reaped). */
  async heartbeat(id: string): Promise<boolean> {
    const r = await sql`update cluster_nodes set heartbeat_at = now() where id = ${id} and reaped_at is null`.execute(this.db);
    return Number(r.numAffectedRows ?? 0) > 0;
  }

  async liveNodes(leaseMs: number): Promise<NodeRow[]> {
    return (await sql<NodeRow>`${liveNodes(leaseMs)} order by id`.execute(this.db)).rows;
  }

  /**
   * Declares dead the nodes whose lease has run out and takes their phones off the map: exactly one
   * caller gets each dead node (its row is locked by the update), with the phones it held.
   */
  async reapDead(leaseMs: number): Promise<{ nodes: string[]; devices: string[] }> {
    return this.db.transaction().execute(async (tx) => {
      const nodes = (await sql<{ id: string }>`update cluster_nodes set reaped_at = now()
        where reaped_at is null and heartbeat_at <= now() - ${ms(leaseMs)} returning id`.execute(tx)).rows.map((r) => r.id);
      if (nodes.length === 0) return { nodes, devices: [] };
      const devices = (await sql<{ device_id: string }>`delete from phone_connections where node_id = any(${nodes}) returning device_id`.execute(tx)).rows.map(
        (r) => r.device_id,
      );
      return { nodes, devices };
    });
  }

  /** The hash of the first run's setup token the node printed, so that any node accepts it. */
  async setSetupTokenHash(id: string, hash: string): Promise<void> {
    await sql`update cluster_nodes set setup_token_hash = ${hash} where id = ${id}`.execute(this.db);
  }

  /** Whether a live node printed the setup token of this hash. */
  async isSetupTokenHash(hash: string, leaseMs: number): Promise<boolean> {
    const r = await sql`select 1 from cluster_nodes where setup_token_hash = ${hash} and reaped_at is null and heartbeat_at > now() - ${ms(leaseMs)}`.execute(this.db);
    return r.rows.length > 0;
  }

  /** A node that stops: its phones and its webhook claims are let go at once, and it leaves the map. */
  async leave(id: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`delete from phone_connections where node_id = ${id}`.execute(tx);
      await sql`update webhook_jobs set claimed_by = null where claimed_by = ${id}`.execute(tx);
      await sql`delete from cluster_nodes where id = ${id}`.execute(tx);
    });
  }

  /** Forgets what no one needs any more: nodes dead for an hour, overflow messages older than a minute, failures older than a day. */
  async sweep(): Promise<void> {
    await sql`delete from cluster_nodes where reaped_at < now() - interval '1 hour'`.execute(this.db);
    await sql`delete from cluster_messages where at < now() - interval '1 minute'`.execute(this.db);
    await sql`delete from rate_limit_failures where at < now() - interval '1 day'`.execute(this.db);
  }

  // ---- phones ------------------------------------------------------------------------------

  /** This node now holds the phone's socket (a newer socket replaces an older one anywhere). */
  async holdPhone(deviceId: string, nodeId: string, connectionId: string): Promise<void> {
    await sql`insert into phone_connections (device_id, node_id, connection_id) values (${deviceId}, ${nodeId}, ${connectionId})
      on conflict (device_id) do update set node_id = excluded.node_id, connection_id = excluded.connection_id, connected_at = now()`.execute(this.db);
  }

  /** The socket closed; a newer socket of the phone (here or on another node) keeps its row. */
  async releasePhone(deviceId: string, connectionId: string): Promise<void> {
    await sql`delete from phone_connections where device_id = ${deviceId} and connection_id = ${connectionId}`.execute(this.db);
  }

  /** The socket of the phone that was recorded last (by any node), if any. */
  async phoneConnection(deviceId: string): Promise<string | undefined> {
    const r = await sql<{ connection_id: string }>`select connection_id from phone_connections where device_id = ${deviceId}`.execute(this.db);
    return r.rows[0]?.connection_id;
  }

  /** The live node that holds the phone's socket, if any. */
  async phoneNode(deviceId: string, leaseMs: number): Promise<NodeRow | undefined> {
    const r = await sql<NodeRow>`select n.id, n.url from phone_connections p join (${liveNodes(leaseMs)}) n on n.id = p.node_id
      where p.device_id = ${deviceId}`.execute(this.db);
    return r.rows[0];
  }

  /** The live node that holds the socket of the call's phone, if any. */
  async callNode(callId: string, leaseMs: number): Promise<NodeRow | undefined> {
    const r = await sql<NodeRow>`select n.id, n.url from calls c join phone_connections p on p.device_id = c.device_id
      join (${liveNodes(leaseMs)}) n on n.id = p.node_id where c.id = ${callId}`.execute(this.db);
    return r.rows[0];
  }

  /** The phones (of `deviceIds`, or all) whose socket is open on a live node other than `except`. */
  async connectedPhones(leaseMs: number, except: string, deviceIds?: string[]): Promise<Set<string>> {
    const only = deviceIds ? sql`and p.device_id = any(${deviceIds})` : sql``;
    const r = await sql<{ device_id: string }>`select p.device_id from phone_connections p join (${liveNodes(leaseMs)}) n on n.id = p.node_id
      where n.id <> ${except} ${only}`.execute(this.db);
    return new Set(r.rows.map((row) => row.device_id));
  }

  // ---- live messages too large for a NOTIFY --------------------------------------------------

  async message(id: number): Promise<string | undefined> {
    const r = await sql<{ body: string }>`select body from cluster_messages where id = ${id}`.execute(this.db);
    return r.rows[0]?.body;
  }

  // ---- rate limits -------------------------------------------------------------------------

  /**
   * Counts a failure before the attempt is made, unless `max` failures are already in the window:
   * then the seconds until the oldest leaves it. Serialised per key (an advisory lock), so attempts
   * made at once on several nodes cannot all pass.
   */
  async countFailure(scope: string, key: string, max: number, windowMs: number): Promise<{ id: number } | { retryAfterSeconds: number }> {
    return this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`${scope}\n${key}`}, 0))`.execute(tx);
      const recent = await this.failuresIn(tx, scope, key, windowMs);
      if (recent.count >= max) return { retryAfterSeconds: recent.retryAfterSeconds };
      const row = (await sql<{ id: string }>`insert into rate_limit_failures (scope, key) values (${scope}, ${key}) returning id`.execute(tx)).rows[0];
      return { id: Number(row?.id) };
    });
  }

  /** Failures of the key within the window, and the seconds until the oldest leaves it. */
  failures(scope: string, key: string, windowMs: number): Promise<{ count: number; retryAfterSeconds: number }> {
    return this.failuresIn(this.db, scope, key, windowMs);
  }

  private async failuresIn(db: Db, scope: string, key: string, windowMs: number): Promise<{ count: number; retryAfterSeconds: number }> {
    const r = await sql<{ n: string; s: number | null }>`select count(*) as n, extract(epoch from (min(at) + ${ms(windowMs)} - now()))::float8 as s
      from rate_limit_failures where scope = ${scope} and key = ${key} and at > now() - ${ms(windowMs)}`.execute(db);
    const row = r.rows[0];
    return { count: Number(row?.n ?? 0), retryAfterSeconds: Math.max(1, Math.ceil(row?.s ?? 1)) };
  }

  async forgiveFailure(id: number): Promise<void> {
    await sql`delete from rate_limit_failures where id = ${id}`.execute(this.db);
  }
}
