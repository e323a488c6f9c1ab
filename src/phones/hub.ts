import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AudioDrops } from '../audio/drops.js';
import { credentialFrom } from '../auth/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import type { PingTimings } from '../socket-guard.js';
import { PhoneAudioPort } from './audio-port.js';
import { PhoneConnection } from './connection.js';
import type { DeviceService, LiveDeviceState } from './devices.js';
import type { PhoneDirectory } from './directory.js';
import { CLOSE_REPLACED, CLOSE_REVOKED, type Command, type DtmfMessage, type HelloMessage, type PhoneEvent, type PhoneMessage } from './protocol.js';
import type { PhoneSockets } from './sockets.js';

/** What the call domain does with a phone's messages. Set once, in the gateway's wiring. */
export interface PhoneEventSink {
  onHello(deviceId: string, hello: HelloMessage): Promise<void>;
  /** Applies an event once; returns the callId to name in the `event.ack` (null when no call fits). */
  onEvent(deviceId: string, event: PhoneEvent): Promise<string | null>;
  onDtmf(deviceId: string, message: DtmfMessage): void;
  onDisconnected(deviceId: string): void;
}

export interface PhoneHubOptions {
  devices: DeviceService;
  /** The phones' open sockets, which the device service reads too. */
  sockets: PhoneSockets;
  /** Where the phone's socket is recorded (one gateway: nowhere; a cluster: for the other nodes). */
  directory: PhoneDirectory;
  log: Logger;
  /** The spec's 20 s ping; a pong later than `pongTimeoutMs` drops the phone. */
  ping: PingTimings;
  commandTimeoutMs: number;
  /** Where phone audio that is dropped (frames of the wrong size) is counted. */
  drops: AudioDrops;
}

const SEEN_PERSIST_INTERVAL_MS = 10_000;

/** Keeps the one socket of each connected phone and carries commands, events and audio over it. */
export class PhoneHub extends EventEmitter<{ device: [deviceId: string]; latency: [deviceId: string, rttMs: number] }> implements LiveDeviceState {
  private readonly connections: PhoneSockets;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private sink: PhoneEventSink | undefined;
  /** Each phone's call audio, kept across its reconnections (see PhoneAudioPort). */
  private readonly ports = new Map<string, PhoneAudioPort>();
  private readonly lastPersisted = new Map<string, number>();

  constructor(private readonly options: PhoneHubOptions) {
    super();
    this.connections = options.sockets;
  }

  setSink(sink: PhoneEventSink): void {
    this.sink = sink;
  }

  /**
   * The phone's call audio, both ways: the media router holds it while a call's audio is live and
   * sets itself as its receiver. Frames go straight from the phone's socket to it, not through the
   * call domain, and it always speaks to the phone's current socket.
   */
  audioPort(deviceId: string): PhoneAudioPort {
    let port = this.ports.get(deviceId);
    if (!port) {
      port = new PhoneAudioPort(deviceId, this.options.drops);
      port.connection = this.connections.get(deviceId);
      this.ports.set(deviceId, port);
    }
    return port;
  }

  connected(deviceId: string): boolean {
    return this.connections.get(deviceId)?.open ?? false;
  }
  /** Resolves once the messages the phone's socket has delivered so far have been applied; at once when it is not connected. */
  applied(deviceId: string): Promise<void> {
    return this.connections.get(deviceId)?.applied() ?? Promise.resolve();
  }
  lastSeenAt(deviceId: string): string | undefined {
    return this.connections.get(deviceId)?.lastSeenAt;
  }
  latencyMs(deviceId: string): number | undefined {
    return this.connections.get(deviceId)?.latencyMs;
  }
  connectedIds(): string[] {
    return this.connections.ids();
  }
  /** Phones whose socket is open now. */
  connectedCount(): number {
    let open = 0;
    for (const connection of this.connections.values()) if (connection.open) open += 1;
    return open;
  }

  /** The upgrade of `GET /v1/phone`: the device token is checked before the socket exists. */
  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const token = credentialFrom({ get: (name) => req.headers[name] as string | undefined });
    const device = token ? await this.options.devices.authenticate(token) : undefined;
    if (!device) throw new GatewayError('UNAUTHORIZED', 'A valid device token is required (Authorization: Bearer <deviceToken>)');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(device.id, ws, socket));
  };

  private accept(deviceId: string, ws: WebSocket, transport: Duplex): void {
    const { log } = this.options;
    const previous = this.connections.get(deviceId);
    if (previous) {
      log.info({ deviceId }, 'phone connected again; closing its older socket');
      this.connections.delete(deviceId);
      previous.close(CLOSE_REPLACED, 'replaced by a newer connection');
    }
    const port = this.audioPort(deviceId);
    const connection: PhoneConnection = new PhoneConnection(
      deviceId,
      ws,
      transport,
      log,
      {
        onMessage: (message) => this.handle(connection, message),
        audio: port,
        onSeen: () => this.persistSeen(connection, false),
        onLatency: (rttMs) => {
          this.emit('latency', deviceId, rttMs);
          // The other nodes read a phone's latency from its row.
          if (this.options.directory.shared) void this.persistSeen(connection, true);
        },
        onClose: (code) => {
          const { badFrames, badMessages, pauses } = connection;
          log.info({ deviceId, code, ...(badFrames > 0 ? { badFrames } : {}), ...(badMessages > 0 ? { badMessages } : {}), ...(pauses > 0 ? { pauses } : {}) }, 'phone disconnected');
          void this.persistSeen(connection, true);
          if (connection.helloReceived) this.options.directory.release(deviceId, connection.id);
          if (port.connection === connection) port.connection = undefined;
          if (this.connections.get(deviceId) === connection) {
            this.connections.delete(deviceId);
            this.sink?.onDisconnected(deviceId);
            this.emit('device', deviceId);
          }
        },
      },
      this.options.ping,
      this.options.drops,
    );
    this.connections.set(connection);
    port.connection = connection;
    log.info({ deviceId }, 'phone connected');
    this.emit('device', deviceId);
  }

  private async handle(connection: PhoneConnection, message: Exclude<PhoneMessage, { type: 'ack' }>): Promise<void> {
    const { deviceId } = connection;
    switch (message.type) {
      case 'hello': {
        // A socket already closed is not held: its removal may have run before this hello's turn came.
        if (connection.open) await this.options.directory.hold(deviceId, connection.id);
        // The call domain sees the hello before the phone is welcomed: nothing the phone does after
        // the welcome (nor a call placed for it) can be mistaken for a call its hello did not name.
        await this.sink?.onHello(deviceId, message);
        connection.send({ type: 'welcome', deviceId, serverTime: new Date().toISOString() });
        if (message.appVersion) await this.options.devices.recordHealthField(deviceId, { appVersion: message.appVersion });
        return;
      }
      case 'health':
        await this.options.devices.recordHealth(deviceId, { ...message.health, reportedAt: message.health.reportedAt ?? new Date().toISOString() });
        this.emit('device', deviceId);
        return;
      case 'event': {
        const callId = (await this.sink?.onEvent(deviceId, message)) ?? null;
        connection.send({ type: 'event.ack', eventId: message.eventId, callId });
        return;
      }
      case 'dtmf':
        this.sink?.onDtmf(deviceId, message);
        return;
      case 'diagnostics':
        await this.options.devices.recordDiagnostics(deviceId, message.report);
        // The console hears of it with the phone's next live message, and reads the report again.
        this.emit('device', deviceId);
        return;
    }
  }

  private persistSeen(connection: PhoneConnection, force: boolean): Promise<void> {
    const now = Date.now();
    const last = this.lastPersisted.get(connection.deviceId) ?? 0;
    if (!force && now - last < SEEN_PERSIST_INTERVAL_MS) return Promise.resolve();
    this.lastPersisted.set(connection.deviceId, now);
    return this.options.devices.recordSeen(connection.deviceId, connection.lastSeenAt, connection.latencyMs).catch((err: unknown) => {
      this.options.log.warn({ err, deviceId: connection.deviceId }, 'could not record last seen');
    });
  }

  /** Sends a command; resolves once the phone acknowledged it with ok, else throws the contract's error. */
  async sendCommand(deviceId: string, command: Command): Promise<void> {
    const connection = this.connections.get(deviceId);
    if (!connection?.open) throw new GatewayError('DEVICE_OFFLINE', 'The phone is not connected to the gateway');
    const ack = await connection.command(command, this.options.commandTimeoutMs);
    if (ack === 'timeout') {
      throw new GatewayError('DEVICE_TIMEOUT', `The phone did not acknowledge the ${command.action} command within ${this.options.commandTimeoutMs / 1000} s`);
    }
    if (ack === 'closed') throw new GatewayError('DEVICE_OFFLINE', 'The phone disconnected before acknowledging the command');
    if (!ack.ok) {
      const code = ack.error?.code ?? 'COMMAND_REFUSED';
      throw new GatewayError(code, ack.error?.message ?? `The phone refused the ${command.action} command`, { status: 409 });
    }
  }

  /** The phone opened a newer socket on another node: an older one here is closed as replaced (4000). */
  replacedElsewhere(deviceId: string, connectionId: string): void {
    const connection = this.connections.get(deviceId);
    if (!connection || connection.id === connectionId) return;
    this.options.log.info({ deviceId }, 'phone connected to another node; closing its older socket here');
    this.connections.delete(deviceId);
    const port = this.ports.get(deviceId);
    if (port?.connection === connection) port.connection = undefined;
    connection.close(CLOSE_REPLACED, 'replaced by a newer connection');
    this.sink?.onDisconnected(deviceId);
    this.emit('device', deviceId);
  }

  /** The phone's socket was on a node of the cluster that died: the call domain and listeners hear it is gone. */
  lostWithItsNode(deviceId: string): void {
    this.sink?.onDisconnected(deviceId);
    this.emit('device', deviceId);
  }

  disconnect(deviceId: string, code: number, reason: string): void {
    this.connections.get(deviceId)?.close(code, reason);
  }

  /** A removed phone: its socket is closed (4001) and listeners hear of it even if it was offline. */
  revoke(deviceId: string, reason: string): void {
    this.ports.delete(deviceId);
    const connection = this.connections.get(deviceId);
    if (connection) connection.close(CLOSE_REVOKED, reason);
    else this.emit('device', deviceId);
  }

  /** Closes every phone socket (1001, going away) for shutdown. */
  async close(): Promise<void> {
    const closing = [...this.connections.values()].map(
      (c) =>
        new Promise<void>((resolve) => {
          c.socket.once('close', () => resolve());
          c.close(1001, 'gateway shutting down');
        }),
    );
    await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.wss.close();
  }
}
