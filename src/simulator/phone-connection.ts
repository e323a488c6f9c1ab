import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { Heartbeat } from '../socket-guard.js';
import { endpointUrl, GatewayRequestError, pairDevice, type PhoneCredentials } from './gateway-http.js';
import {
  parseGatewayMessage,
  type CommandMessage,
  type EventAckMessage,
  type GatewayErrorMessage,
  type Health,
  type HelloMessage,
  type PhoneMessage,
  type WelcomeMessage,
} from './protocol.js';
import type { PhoneSimulatorEvents, PhoneSimulatorOptions, SimulatorLogger } from './types.js';
import { WaitSet } from './waiters.js';

type EmitterMap = { [K in keyof PhoneSimulatorEvents]: [PhoneSimulatorEvents[K]] };
type AnyListener = (payload: unknown) => void;

const silentLogger: SimulatorLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The phone's link to the gateway (phone-protocol.md sections 1 to 3): pairing, the socket with
 * hello/welcome, health reports, reconnects with backoff, typed events and waitFor().
 * PhoneSimulator adds the calls, the event outbox and the audio.
 */
export abstract class SimulatedPhoneConnection extends EventEmitter<EmitterMap> {
  readonly gatewayUrl: string;
  readonly name: string;
  /** Every `error` message of the gateway. */
  readonly gatewayErrors: GatewayErrorMessage[] = [];
  /** Every way the gateway broke phone-protocol.md, as text. */
  readonly protocolViolations: string[] = [];

  protected credentials: PhoneCredentials | null;
  protected readonly opts: PhoneSimulatorOptions;
  protected readonly log: SimulatorLogger;
  protected readonly health: Omit<Health, 'reportedAt'>;
  /** The open, welcomed socket. */
  protected socket: WebSocket | null = null;
  private pending: WebSocket | null = null;
  private online = false;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectAttempts = 0;
  private healthTimer: NodeJS.Timeout | null = null;
  private heartbeat: Heartbeat | null = null;
  private readonly waits = new WaitSet();

  constructor(opts: PhoneSimulatorOptions) {
    super();
    endpointUrl(opts.gatewayUrl, '/v1/phone', 'ws');
    this.opts = opts;
    this.gatewayUrl = opts.gatewayUrl;
    this.name = opts.name ?? 'Phone simulator';
    this.credentials = opts.credentials ?? null;
    this.log = opts.logger ?? silentLogger;
    this.health = {
      battery: 87,
      charging: true,
      network: 'wifi',
      signal: 4,
      carrier: 'Simulated Carrier',
      audio: 'running',
      appVersion: opts.appVersion ?? '0.1.0-sim',
      android: opts.android ?? '14',
      model: opts.model ?? 'Phone Simulator',
      ...opts.health,
    };
  }

  protected abstract hello(): HelloMessage;
  /** The socket was welcomed (health already sent). */
  protected abstract onReady(ws: WebSocket): void;
  protected abstract onCommand(ws: WebSocket, cmd: CommandMessage): void;
  protected abstract onEventAck(ack: EventAckMessage): void;
  protected abstract onAudio(frame: Buffer): void;
  /** The welcomed socket closed. */
  protected abstract onSocketGone(): void;

  get deviceId(): string | null {
    return this.credentials?.deviceId ?? null;
  }

  /** True while a socket is open and welcomed. */
  get connected(): boolean {
    return this.socket !== null;
  }

  currentHealth(): Health {
    return { ...this.health, reportedAt: new Date().toISOString() };
  }

  /**
   * Changes health fields and reports them at once, as a phone does on a network change; with
   * `report: false` the change waits for the next periodic report (a SIM pulled between two).
   */
  setHealth(patch: Partial<Omit<Health, 'reportedAt'>>, { report = true }: { report?: boolean } = {}): void {
    Object.assign(this.health, patch);
    if (report) this.sendHealth();
  }

  /** `POST /v1/phone/pair`; throws GatewayRequestError (status, code, body) when refused. */
  async pair(code: string): Promise<PhoneCredentials> {
    this.credentials = await pairDevice(this.gatewayUrl, {
      code,
      name: this.name,
      model: this.health.model,
      android: this.health.android,
      appVersion: this.health.appVersion,
    });
    return { ...this.credentials };
  }

  /** Opens the phone socket; resolves after `welcome`. A refused upgrade rejects with GatewayRequestError. */
  connect(): Promise<void> {
    if (this.socket) return Promise.resolve();
    if (this.connecting) return this.connecting;
    this.online = true;
    this.clearReconnect();
    return this.track(
      this.openSocket().catch((err: unknown) => {
        this.online = false;
        throw err;
      }),
    );
  }

  /** Closes the socket cleanly (1000) and stays offline; the call and the outbox are kept. */
  async disconnect(): Promise<void> {
    this.online = false;
    this.clearReconnect();
    const ws = this.socket ?? this.pending;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, 'phone disconnects');
    });
  }

  /** Destroys the TCP connection without a close frame, like a lost network; reconnects if enabled. */
  dropSocket(): void {
    this.socket?.terminate();
  }

  /**
   * Waits for the next simulator event of that name (optionally one that passes `filter`), or
   * until `predicate(sim)` holds; the predicate is checked now and after every event and frame.
   */
  waitFor<K extends keyof PhoneSimulatorEvents>(
    event: K,
    timeoutMs?: number,
    filter?: (payload: PhoneSimulatorEvents[K]) => boolean,
  ): Promise<PhoneSimulatorEvents[K]>;
  waitFor(predicate: (sim: this) => boolean, timeoutMs?: number): Promise<void>;
  waitFor<K extends keyof PhoneSimulatorEvents>(
    target: K | ((sim: this) => boolean),
    timeoutMs = 5000,
    filter?: (payload: PhoneSimulatorEvents[K]) => boolean,
  ): Promise<PhoneSimulatorEvents[K] | void> {
    if (typeof target === 'function') return this.waits.until(() => target(this), timeoutMs, 'predicate');
    let got: { payload: PhoneSimulatorEvents[K] } | null = null;
    const listener: AnyListener = (payload) => {
      const p = payload as PhoneSimulatorEvents[K];
      if (!got && (!filter || filter(p))) got = { payload: p };
    };
    // fire() pokes the wait set right after each emit, so the wait below sees the event at once.
    (this.on as (name: string, l: AnyListener) => this)(target, listener);
    return this.waits
      .until(() => got !== null, timeoutMs, `'${target}'`)
      .then(() => got?.payload)
      .finally(() => (this.off as (name: string, l: AnyListener) => this)(target, listener));
  }

  /** Closes the socket, stops timers and rejects pending waitFor() calls. */
  protected async stopConnection(): Promise<void> {
    await this.disconnect();
    this.stopHealth();
    this.waits.rejectAll(new Error('phone simulator stopped'));
  }

  protected send(ws: WebSocket, msg: PhoneMessage): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  protected violation(problem: string): void {
    this.protocolViolations.push(problem);
    this.log.warn({ problem }, 'gateway broke the phone protocol');
    this.fire('protocol-violation', problem);
  }

  protected fire<K extends keyof PhoneSimulatorEvents>(name: K, payload: PhoneSimulatorEvents[K]): void {
    // An 'error' nobody listens to would throw out of the socket handler.
    if (name !== 'error' || this.listenerCount('error') > 0) {
      (this.emit as (n: K, p: PhoneSimulatorEvents[K]) => boolean)(name, payload);
    }
    this.checkWaiters();
  }

  protected checkWaiters(): void {
    this.waits.poke();
  }

  protected get hasWaiters(): boolean {
    return this.waits.size > 0;
  }

  private openSocket(): Promise<void> {
    const creds = this.credentials;
    if (!creds) return Promise.reject(new Error('the phone is not paired: pass credentials or call pair() first'));
    const timeoutMs = this.opts.welcomeTimeoutMs ?? 10_000;
    return new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(endpointUrl(this.gatewayUrl, '/v1/phone', 'ws'), {
        headers: { Authorization: `Bearer ${creds.deviceToken}` },
        perMessageDeflate: false,
        handshakeTimeout: timeoutMs,
      });
      this.pending = ws;
      let welcomed = false;
      let failure: Error | null = null;
      const timer = setTimeout(() => {
        failure ??= new Error(`no welcome from the gateway within ${timeoutMs} ms`);
        ws.terminate();
      }, timeoutMs);

      ws.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('close', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          failure = new GatewayRequestError('phone socket upgrade', res.statusCode ?? 0, body);
          ws.terminate();
        });
      });
      ws.on('open', () => this.send(ws, this.hello()));
      ws.on('message', (data, isBinary) => {
        const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        if (isBinary) return this.onAudio(buf);
        const parsed = parseGatewayMessage(buf.toString('utf8'));
        if (!parsed.ok) return this.violation(parsed.problem);
        const msg = parsed.message;
        if (msg.type === 'welcome') {
          if (welcomed) return this.violation('a second welcome on one socket');
          welcomed = true;
          clearTimeout(timer);
          this.onWelcome(ws, msg);
          resolve();
          return;
        }
        if (!welcomed) this.violation(`${msg.type} before welcome`);
        if (msg.type === 'command') this.onCommand(ws, msg);
        else if (msg.type === 'event.ack') this.onEventAck(msg);
        else {
          this.gatewayErrors.push(msg);
          this.log.warn({ code: msg.code, message: msg.message }, 'gateway error message');
          this.fire('error', msg);
        }
      });
      ws.on('error', (err) => {
        failure ??= err;
        this.log.debug({ err: err.message }, 'phone socket error');
      });
      ws.on('close', (code, reasonBuf) => {
        clearTimeout(timer);
        if (this.pending === ws) this.pending = null;
        const reason = reasonBuf.toString('utf8');
        if (!welcomed) {
          const err = failure ?? new Error(`phone socket closed before welcome (code ${code}${reason ? `: ${reason}` : ''})`);
          reject(Object.assign(err, { closeCode: code }));
          return;
        }
        if (this.socket !== ws) return;
        this.socket = null;
        this.stopHealth();
        this.heartbeat?.stop();
        this.heartbeat = null;
        this.onSocketGone();
        this.onClosed(code, reason);
      });
    });
  }

  private onWelcome(ws: WebSocket, msg: WelcomeMessage): void {
    if (this.credentials && msg.deviceId !== this.credentials.deviceId) {
      this.violation(`welcome names ${msg.deviceId}, the phone is ${this.credentials.deviceId}`);
    }
    this.pending = null;
    this.socket = ws;
    this.reconnectAttempts = 0;
    this.sendHealth();
    this.stopHealth();
    this.healthTimer = setInterval(() => this.sendHealth(), this.opts.healthIntervalMs ?? 60_000);
    // A gateway that stopped answering (a half-open connection) is noticed here, not minutes later by TCP.
    const pongTimeoutMs = this.opts.pongTimeoutMs ?? 10_000;
    this.heartbeat?.stop();
    this.heartbeat = new Heartbeat(ws, {
      intervalMs: this.opts.pingIntervalMs ?? 20_000,
      timeoutMs: pongTimeoutMs,
      onMissed: () => {
        this.log.warn({ pongTimeoutMs }, 'gateway did not answer a ping in time; dropping the socket');
        ws.terminate();
      },
    });
    this.onReady(ws);
    this.log.info({ deviceId: msg.deviceId }, 'phone connected');
    this.fire('connected', { deviceId: msg.deviceId, serverTime: msg.serverTime });
  }

  private onClosed(code: number, reason: string): void {
    if (code === 4000 || code === 4001) this.online = false;
    const willReconnect = this.online && this.opts.reconnect !== false;
    this.log.info({ code, reason, willReconnect }, 'phone socket closed');
    this.fire('disconnected', { code, reason, willReconnect });
    if (code === 4001) this.fire('revoked', { closeCode: code, reason });
    else if (code === 4000) this.fire('replaced', { closeCode: code, reason });
    else if (willReconnect) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer) return;
    const initial = this.opts.reconnectDelayMs?.initial ?? 250;
    const max = this.opts.reconnectDelayMs?.max ?? 10_000;
    const delay = Math.min(max, initial * 2 ** this.reconnectAttempts) * (0.8 + Math.random() * 0.4);
    this.reconnectAttempts++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.online || this.socket || this.connecting) return;
      this.track(this.openSocket()).catch((err: unknown) => this.onReconnectFailed(err));
    }, delay);
  }

  /** Remembers the attempt in flight, so connect() during a reconnect joins it. */
  private track(attempt: Promise<void>): Promise<void> {
    const tracked = attempt.finally(() => {
      if (this.connecting === tracked) this.connecting = null;
    });
    this.connecting = tracked;
    return tracked;
  }

  private onReconnectFailed(err: unknown): void {
    if (!this.online) return;
    const message = err instanceof Error ? err.message : String(err);
    const closeCode = (err as { closeCode?: number }).closeCode;
    if ((err instanceof GatewayRequestError && err.status === 401) || closeCode === 4001) {
      // A refused token does not come back by retrying.
      this.online = false;
      const cause = err instanceof GatewayRequestError ? { status: err.status } : { closeCode };
      this.fire('revoked', { ...cause, reason: message });
      return;
    }
    this.log.warn({ err: message, attempt: this.reconnectAttempts }, 'reconnect failed');
    this.scheduleReconnect();
  }

  private clearReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private sendHealth(): void {
    if (!this.socket) return;
    const health = this.currentHealth();
    this.send(this.socket, { type: 'health', health });
    this.fire('health', health);
  }

  private stopHealth(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
  }
}
