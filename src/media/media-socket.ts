import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Call, CallService } from '../calls/index.js';
import { isFinal } from '../calls/index.js';
import { RawCodec } from '../codecs/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import { AudioPeer, type PingTimings } from '../socket-guard.js';
import type { AttachmentKind, CallAttachment, CallAttachments, StopReason } from './attachments.js';
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

/** Where a media socket is: waiting for the call's audio, carrying it, or told `stop` (or shut down). */
export type MediaSocketStatus = 'waiting' | 'live' | 'ended';

/** One media socket, attached to its call's audio by the registry (CallAttachments). */
class MediaClient implements CallAttachment<MediaSocketStatus> {
  /** The play-out source and the listener of the call's audio, once attached; kept until the socket closes. */
  private bridged: { source: PlayoutSource; stopListening: () => void } | undefined;
  private stopped = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly peer: AudioPeer,
    private readonly codec: RawCodec,
    private readonly sourceId: string,
    private readonly callId: string,
    private readonly log: Logger,
  ) {}

  get status(): MediaSocketStatus {
    return this.stopped ? 'ended' : this.bridged ? 'live' : 'waiting';
  }

  /** Where what the client sends plays; none before the call's audio started. */
  get source(): PlayoutSource | undefined {
    return this.bridged?.source;
  }

  attach(audio: CallAudio): void {
    if (this.bridged || this.stopped) return;
    const { callId, sourceId, log, peer, codec } = this;
    const source = audio.source(sourceId, { overflow: () => log.warn({ callId, sourceId }, 'media client sent more than two minutes of unplayed audio; dropping the excess') });
    const stopListening = audio.listen((frame) => peer.send(codec.audio(frame)));
    this.bridged = { source, stopListening };
  }

  /** The call (or its audio) ended here: `stop`, then the socket closes; at shutdown it closes with 1001. */
  stop(reason: StopReason): void {
    this.stopped = true;
    if (reason === 'closing') this.ws.close(1001, 'gateway shutting down');
    else if (this.peer.send(this.codec.stop())) this.ws.close(1000, 'call ended');
  }

  /** The socket closed: the call's audio is let go of. */
  closed(): void {
    this.bridged?.stopListening();
    this.bridged?.source.remove();
  }
}

/**
 * `/v1/calls/{callId}/media`: the raw stream protocol with the roles swapped (contract.md). The
 * client hears the remote party and may speak into the call; several clients may share a call.
 * Each socket is an attachment of the call (CallAttachments), which hears the router's and the call
 * service's events once for all sockets: any number of sockets costs the same listeners.
 */
export class MediaSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly sockets = new Set<WebSocket>();
  private readonly clients: AttachmentKind<MediaClient>;

  constructor(private readonly o: { calls: CallService; media: MediaRouter; attachments: CallAttachments; authenticate: UpgradeAuthenticator; log: Logger; ping: PingTimings }) {
    this.clients = o.attachments.kind('media socket');
  }

  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>): Promise<void> => {
    await this.o.authenticate(req);
    const call = await this.o.calls.get(params.callId ?? '');
    if (isFinal(call.state)) throw new GatewayError('DEVICE_OFFLINE', `The call has ended (${call.state})`);
    // Counted after the last await: from here to accept() nothing else runs, so two upgrades cannot both take the last place.
    if (this.clients.count(call.id) >= MAX_MEDIA_SOCKETS_PER_CALL) {
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

    const client = new MediaClient(ws, peer, codec, sourceId, call.id, log);
    this.clients.add(call.id, client);
    this.clients.attachNow(call.id, client);

    ws.on('message', (data, isBinary) => {
      // The raw protocol's one parser (codecs/raw.ts); a media client is told what it sent wrong.
      const message = codec.decode(data as Buffer, isBinary);
      const source = client.source;
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
      this.clients.remove(call.id, client);
      client.closed();
      log.info({ callId: call.id, sourceId }, 'media socket closed');
    });
  }

  close(): void {
    for (const ws of this.sockets) ws.close(1001, 'gateway shutting down');
    this.wss.close();
  }
}
