import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Call, CallService } from '../calls/index.js';
import { isFinal } from '../calls/index.js';
import { RawCodec } from '../codecs/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import { AudioPeer, type PingTimings } from '../socket-guard.js';
import type { CallAudio, PlayoutSource } from './call-audio.js';
import type { MediaRouter } from './router.js';

/** Resolves for a valid credential; throws the contract's 401 otherwise. */
export type UpgradeAuthenticator = (req: IncomingMessage) => Promise<unknown>;

let nextListener = 0;
/** As the live channel: the credential of the upgrade no longer holds. */
const CLOSE_UNAUTHORIZED = 4001;
/**
 * Media sockets one call may have open at once (docs/api.md): listeners in a room, a recorder, a
 * console or two. Each costs a copy of every frame; the next one is refused with 409 CONFLICT.
 */
export const MAX_MEDIA_SOCKETS_PER_CALL = 16;

/** One media socket, as the call's events reach it. */
interface MediaClient {
  /** The call's audio has started (or had when the socket opened). */
  attach(audio: CallAudio): void;
  /** The call's audio has ended, or the call ended before it had any. */
  stop(): void;
  readonly attached: boolean;
}

/**
 * `/v1/calls/{callId}/media`: the raw stream protocol with the roles swapped (contract.md). The
 * client hears the remote party and may speak into the call; several clients may share a call.
 * The router's and the call service's events are heard once here and handed to the sockets of
 * their call, so any number of sockets costs the same listeners.
 */
export class MediaSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly sockets = new Set<WebSocket>();
  private readonly byCall = new Map<string, Set<MediaClient>>();

  constructor(private readonly o: { calls: CallService; media: MediaRouter; authenticate: UpgradeAuthenticator; log: Logger; ping: PingTimings }) {
    o.media.on('started', this.onStarted);
    o.media.on('ended', this.onEnded);
    o.calls.on('change', this.onChange);
  }

  private readonly onStarted = (audio: CallAudio): void => {
    for (const client of this.clientsOf(audio.callId)) if (!client.attached) client.attach(audio);
  };

  private readonly onEnded = (audio: CallAudio): void => {
    for (const client of this.clientsOf(audio.callId)) client.stop();
  };

  /** A call that ends before its audio ever started (never answered) ends its sockets too. */
  private readonly onChange = ({ call }: { call: Call }): void => {
    if (!isFinal(call.state)) return;
    for (const client of this.clientsOf(call.id)) if (!client.attached) client.stop();
  };

  /** A copy: a client may leave while its call's event is handed round. */
  private clientsOf(callId: string): MediaClient[] {
    const clients = this.byCall.get(callId);
    return clients ? [...clients] : [];
  }

  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>): Promise<void> => {
    await this.o.authenticate(req);
    const call = await this.o.calls.get(params.callId ?? '');
    if (isFinal(call.state)) throw new GatewayError('DEVICE_OFFLINE', `The call has ended (${call.state})`);
    // Counted after the last await: from here to accept() nothing else runs, so two upgrades cannot both take the last place.
    if ((this.byCall.get(call.id)?.size ?? 0) >= MAX_MEDIA_SOCKETS_PER_CALL) {
      throw new GatewayError('CONFLICT', `The call already has ${MAX_MEDIA_SOCKETS_PER_CALL} media sockets open, the most one call may have: close one first`);
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.accept(ws, socket, call);
      // The credential of the upgrade is checked again at every heartbeat: a deleted key, a removed
      // user, a signed-out session or a new password ends the socket within one ping interval.
      // A check that fails for another reason (the store timed out) says nothing about the credential.
      ws.on('pong', () => {
        this.o.authenticate(req).catch((err: unknown) => {
          if (!(err instanceof GatewayError && err.code === 'UNAUTHORIZED')) {
            this.o.log.warn({ err, callId: call.id, deviceId: call.deviceId }, 'media socket credential could not be checked; kept open');
          } else if (ws.readyState === ws.OPEN) {
            ws.close(CLOSE_UNAUTHORIZED, 'the credential is no longer valid');
          }
        });
      });
    });
  };

  private accept(ws: WebSocket, transport: Duplex, call: Call): void {
    const { log, media } = this.o;
    this.sockets.add(ws);
    const sourceId = `media:${++nextListener}`;
    log.info({ callId: call.id, deviceId: call.deviceId, sourceId }, 'media socket opened');
    const codec = new RawCodec();
    const peer = new AudioPeer(ws, {
      ...this.o.ping,
      transport,
      maxBufferedBytes: codec.bytesPerSecond,
      onCutOff: (reason) => log.warn({ callId: call.id, deviceId: call.deviceId, sourceId, reason }, 'media socket cut off'),
    });
    for (const message of codec.start({ callId: call.id, direction: call.direction, remoteNumber: call.remoteNumber, deviceId: call.deviceId })) peer.send(message);

    let stopListening: (() => void) | undefined;
    let source: PlayoutSource | undefined;
    let attached = false;
    const client: MediaClient = {
      get attached() {
        return attached;
      },
      attach(a: CallAudio) {
        attached = true;
        source = a.source(sourceId, { overflow: () => log.warn({ callId: call.id, sourceId }, 'media client sent more than two minutes of unplayed audio; dropping the excess') });
        stopListening = a.listen((frame) => peer.send(codec.audio(frame)));
      },
      stop() {
        if (peer.send(codec.stop())) ws.close(1000, 'call ended');
      },
    };
    let clients = this.byCall.get(call.id);
    if (!clients) this.byCall.set(call.id, (clients = new Set()));
    clients.add(client);
    const existing = media.get(call.id);
    if (existing) client.attach(existing);

    ws.on('message', (data, isBinary) => {
      // The raw protocol's one parser (codecs/raw.ts); a media client is told what it sent wrong.
      const message = codec.decode(data as Buffer, isBinary);
      if (message.kind === 'audio') {
        // Before the call is answered nothing plays what the client sends.
        if (source) source.push(message.pcm);
        else media.drops.noCallBytes += message.pcm.length;
      } else if (message.kind === 'clear') {
        source?.clear();
      } else {
        const got = message.kind === 'ignored' ? `; got ${message.why}` : '';
        peer.send(JSON.stringify({ type: 'error', code: 'BAD_MESSAGE', message: `Expected binary PCM or {"type":"clear"}${got}` }));
      }
    });
    ws.on('error', (err) => log.warn({ err, callId: call.id }, 'media socket error'));
    ws.on('close', () => {
      this.sockets.delete(ws);
      clients.delete(client);
      if (clients.size === 0 && this.byCall.get(call.id) === clients) this.byCall.delete(call.id);
      stopListening?.();
      source?.remove();
      log.info({ callId: call.id, sourceId }, 'media socket closed');
    });
  }

  close(): void {
    this.o.media.off('started', this.onStarted);
    this.o.media.off('ended', this.onEnded);
    this.o.calls.off('change', this.onChange);
    for (const ws of this.sockets) ws.close(1001, 'gateway shutting down');
    this.wss.close();
  }
}
