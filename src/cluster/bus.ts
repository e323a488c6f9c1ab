import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../log.js';
import type { ClusterRepo, Db } from '../store/index.js';

/** What nodes tell each other. Every kind is a fact to act on, never a request that needs an answer. */
export interface BusMessages {
  /** A LiveMessage, as the console's live channel sends it (JSON text). */
  live: string;
  /** The settings changed: read them again. */
  settings: string;
  /** A phone's socket is now held by the sending node: `deviceId connectionId`. */
  phone: string;
  /** The sending node joined the cluster. */
  node: string;
  /** A call moved between states on the sending node: `previousState state` (no previous state: a new call). */
  call: string;
}
export type BusKind = keyof BusMessages;
const KINDS: ReadonlySet<string> = new Set<BusKind>(['live', 'settings', 'phone', 'node', 'call']);

const CHANNEL = 'voice_gateway';
/** PostgreSQL refuses payloads of 8000 bytes or more; larger bodies go through cluster_messages. */
const MAX_INLINE_BYTES = 7000;
/** Messages waiting to be published; past it, live messages are dropped (the console reloads on reconnect). */
const MAX_PENDING = 10_000;
const RECONNECT_MS = { initial: 250, max: 5_000 };

type Listening = 'stopped' | 'connecting' | 'listening' | 'closed';

/**
 * PostgreSQL LISTEN/NOTIFY between the nodes: one channel, one listening connection per node, and
 * messages published one after another so that each node's messages arrive in the order it sent
 * them. A payload too large for a NOTIFY is stored in cluster_messages and its id sent instead.
 * After the listening connection was lost (messages may have been missed), `resync` tells the
 * listeners to read again what they cache.
 */
export class ClusterBus extends EventEmitter<{ message: [kind: BusKind, payload: string, from: string]; resync: [] }> {
  private client: pg.Client | undefined;
  private state: Listening = 'stopped';
  private publishing: Promise<void> = Promise.resolve();
  private pending = 0;
  private droppedLive = 0;
  private received: Promise<void> = Promise.resolve();
  private retryMs = RECONNECT_MS.initial;
  private retryTimer: NodeJS.Timeout | undefined;
  private listenedBefore = false;

  constructor(
    private readonly o: { connectionString: string; timeoutMs: number; db: Db; repo: ClusterRepo; nodeId: () => string; log: Logger },
  ) {
    super();
  }

  /** Resolves once the node listens. */
  async start(): Promise<void> {
    await this.listen();
  }

  private async listen(): Promise<void> {
    this.state = 'connecting';
    // The gateway's own bounds (DATABASE_TIMEOUT) on connecting and on LISTEN; TCP keep-alive notices a
    // connection that went silent, which a connection that only listens would never notice otherwise.
    const client = new pg.Client({ connectionString: this.o.connectionString, connectionTimeoutMillis: this.o.timeoutMs, query_timeout: this.o.timeoutMs, keepAlive: true });
    this.client = client;
    client.on('notification', (n) => {
      if (n.channel === CHANNEL && n.payload !== undefined) this.receive(n.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      this.lost(client, err as Error);
      throw err;
    }
    if (this.client !== client) return;
    const again = this.listenedBefore;
    this.listenedBefore = true;
    this.state = 'listening';
    this.retryMs = RECONNECT_MS.initial;
    if (again) {
      this.o.log.info('listening to the cluster again; reading cached state anew');
      this.emit('resync');
    }
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client || this.state === 'closed') return;
    this.client = undefined;
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    this.o.log.warn({ err }, 'the cluster\'s listening connection was lost; reconnecting');
    this.state = 'connecting';
    const delay = this.retryMs;
    this.retryMs = Math.min(RECONNECT_MS.max, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.state !== 'closed') this.listen().catch(() => undefined);
    }, delay);
    this.retryTimer.unref();
  }

  /** Handled one after another, so a large message read from the table is not overtaken by the next. */
  private receive(raw: string): void {
    const [kind, from, ...rest] = raw.split('\n');
    if (kind === undefined || from === undefined || !KINDS.has(kind) || from === this.o.nodeId()) return;
    const body = rest.join('\n');
    this.received = this.received
      .then(async () => {
        const payload = body.startsWith('@') ? await this.o.repo.message(Number(body.slice(1))) : body.slice(1);
        if (payload !== undefined) this.emit('message', kind as BusKind, payload, from);
      })
      .catch((err: unknown) => this.o.log.warn({ err, kind }, 'could not read a cluster message'));
  }

  /** Sends to every other node; in order, never throws (a lost message is logged). */
  publish<K extends BusKind>(kind: K, payload: BusMessages[K]): void {
    if (this.state === 'closed' || this.state === 'stopped') return;
    if (this.pending >= MAX_PENDING && kind === 'live') {
      if (this.droppedLive++ === 0) this.o.log.warn('the cluster bus is behind; live messages are dropped until it catches up');
      return;
    }
    this.pending += 1;
    const head = `${kind}\n${this.o.nodeId()}\n`;
    this.publishing = this.publishing
      .then(async () => {
        if (Buffer.byteLength(payload) <= MAX_INLINE_BYTES) {
          await sql`select pg_notify(${CHANNEL}, ${`${head}=${payload}`})`.execute(this.o.db);
        } else {
          await sql`with m as (insert into cluster_messages (body) values (${payload}) returning id)
            select pg_notify(${CHANNEL}, ${head} || '@' || m.id) from m`.execute(this.o.db);
        }
      })
      .catch((err: unknown) => this.o.log.warn({ err, kind }, 'could not publish a cluster message'))
      .finally(() => {
        this.pending -= 1;
        if (this.pending === 0 && this.droppedLive > 0) {
          this.o.log.warn({ dropped: this.droppedLive }, 'the cluster bus caught up');
          this.droppedLive = 0;
        }
      });
  }

  /** Waits (briefly) for what is being published, then stops listening. */
  async close(): Promise<void> {
    await Promise.race([this.publishing, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    this.state = 'closed';
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
