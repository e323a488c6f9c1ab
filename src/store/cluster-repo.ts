import { sql } from 'kysely';
import type { Db } from './database.js';

/** A node of the cluster that answers its heartbeat. */
export interface NodeRow {
  id: string;
  url: string;
}

/** A webhook job a node claimed, as its schedule keeps it (the body is read when it goes out). */
export interface ClaimedJobRow {
  id: number;
  callId: string;
  url: string;
  attempt: number;
  dueAt: string;
}

const ms = (value: number) => sql`(${Math.round(value)}::bigint * interval '1 millisecond')`;

/** The one rule of a live node: not reaped, and a heartbeat younger than the lease (by the database's clock). */
const isLive = (leaseMs: number) => sql<boolean>`reaped_at is null and heartbeat_at > now() - ${ms(leaseMs)}`;

/** Live nodes, as a subquery. */
const liveNodes = (leaseMs: number) => sql`select id, url from cluster_nodes where ${isLive(leaseMs)}`;

/**
 * The cluster's own tables (PostgreSQL only, migration 008): the nodes and their heartbeats, which
 * node holds each phone's socket, live messages too large for a NOTIFY, and the failures rate limits
 * count. Every time is the database's (`now()`), so nodes whose clocks differ still agree.
 */
export class ClusterRepo {
  constructor(private readonly db: Db) {}

  async register(node: NodeRow): Promise<void> {
    await this.db.insertInto('cluster_nodes').values({ id: node.id, url: node.url, reaped_at: null, setup_token_hash: null }).execute();
  }

  /** Renews the node's lease; false once another node has declared it dead (reaped). */
  async heartbeat(id: string): Promise<boolean> {
    const r = await this.db.updateTable('cluster_nodes').set({ heartbeat_at: sql`now()` }).where('id', '=', id).where('reaped_at', 'is', null).executeTakeFirst();
    return r.numUpdatedRows > 0n;
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
    await this.db.updateTable('cluster_nodes').set({ setup_token_hash: hash }).where('id', '=', id).execute();
  }

  /** Whether a live node printed the setup token of this hash. */
  async isSetupTokenHash(hash: string, leaseMs: number): Promise<boolean> {
    const row = await this.db.selectFrom('cluster_nodes').select('id').where('setup_token_hash', '=', hash).where(isLive(leaseMs)).executeTakeFirst();
    return row !== undefined;
  }

  /** A node that stops: its phones and its webhook claims are let go at once, and it leaves the map. */
  async leave(id: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('phone_connections').where('node_id', '=', id).execute();
      await tx.updateTable('webhook_jobs').set({ claimed_by: null }).where('claimed_by', '=', id).execute();
      await tx.deleteFrom('cluster_nodes').where('id', '=', id).execute();
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
    await this.db.deleteFrom('phone_connections').where('device_id', '=', deviceId).where('connection_id', '=', connectionId).execute();
  }

  /** The socket of the phone that was recorded last (by any node), if any. */
  async phoneConnection(deviceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('phone_connections').select('connection_id').where('device_id', '=', deviceId).executeTakeFirst();
    return row?.connection_id;
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

  // ---- webhook jobs ------------------------------------------------------------------------

  /**
   * Several gateways: claims for `claimant` up to `limit` jobs that no live node holds (never claimed,
   * or held by a node whose lease ran out). Rows another node is claiming at the same time are
   * skipped (FOR UPDATE SKIP LOCKED), so each job is claimed by one node. A first attempt is left
   * for later while an earlier first attempt of its call is held elsewhere.
   */
  async claimJobs(claimant: string, leaseMs: number, limit: number): Promise<ClaimedJobRow[]> {
    return this.db.transaction().execute(async (tx) => {
      const free = (
        await sql<{ id: string; call_id: string; attempt: number }>`select j.id, j.call_id, j.attempt from webhook_jobs j
          where j.claimed_by is null
             or j.claimed_by not in (select n.id from (${liveNodes(leaseMs)}) n)
          order by j.id limit ${limit}
          for update of j skip locked`.execute(tx)
      ).rows.map((r) => ({ id: Number(r.id), callId: r.call_id, attempt: Number(r.attempt) }));
      if (free.length === 0) return [];
      const picked = new Set(free.map((j) => j.id));
      const calls = [...new Set(free.filter((j) => j.attempt === 1).map((j) => j.callId))];
      const firstAttempts = calls.length
        ? (await sql<{ id: string; call_id: string; claimed_by: string | null }>`select id, call_id, claimed_by from webhook_jobs
            where call_id = any(${calls}) and attempt = 1`.execute(tx)).rows
        : [];
      // Per call, the earliest first attempt this claim does not take and this node does not hold.
      const blockedFrom = new Map<string, number>();
      for (const row of firstAttempts) {
        const id = Number(row.id);
        if (picked.has(id) || row.claimed_by === claimant) continue;
        blockedFrom.set(row.call_id, Math.min(id, blockedFrom.get(row.call_id) ?? Infinity));
      }
      const taken = free.filter((j) => j.attempt > 1 || j.id < (blockedFrom.get(j.callId) ?? Infinity)).map((j) => j.id);
      if (taken.length === 0) return [];
      const rows = (
        await sql<{ id: string; call_id: string; url: string; attempt: number; due_at: string }>`update webhook_jobs set claimed_by = ${claimant}
          where id = any(${taken}) returning id, call_id, url, attempt, due_at`.execute(tx)
      ).rows;
      return rows.map((r) => ({ id: Number(r.id), callId: r.call_id, url: r.url, attempt: Number(r.attempt), dueAt: r.due_at })).sort((a, b) => a.id - b.id);
    });
  }

  // ---- live messages too large for a NOTIFY --------------------------------------------------

  async message(id: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('cluster_messages').select('body').where('id', '=', id).executeTakeFirst();
    return row?.body;
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
    await this.db.deleteFrom('rate_limit_failures').where('id', '=', id).execute();
  }
}
