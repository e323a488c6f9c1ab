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
 * `/v1/calls/{callId}/media`: the raw stream protocol with the roles swapped (contract.md). The
 * client hears the remote party and may speak into the call; several clients may share a call.
 */
export class MediaSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly sockets = new Set<WebSocket>();

  constructor(private readonly o: { calls: CallService; media: MediaRouter; authenticate: UpgradeAuthenticator; log: Logger; ping: PingTimings }) {}

  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>): Promise<void> => {
    await this.o.authenticate(req);
    const call = await this.o.calls.get(params.callId ?? '');
    if (isFinal(call.state)) throw new GatewayError('DEVICE_OFFLINE', `The call has ended (${call.state})`);
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

    let audio: CallAudio | undefined;
    let stopListening: (() => void) | undefined;
    let source: PlayoutSource | undefined;
    const attach = (a: CallAudio) => {
      audio = a;
      source = a.source(sourceId, { overflow: () => log.warn({ callId: call.id, sourceId }, 'media client sent more than two minutes of unplayed audio; dropping the excess') });
      stopListening = a.listen((frame) => peer.send(codec.audio(frame)));
    };
    const existing = media.get(call.id);
    if (existing) attach(existing);

    const onStarted = (a: CallAudio) => {
      if (a.callId === call.id && !audio) attach(a);
    };
    const stop = () => {
      if (peer.send(codec.stop())) ws.close(1000, 'call ended');
    };
    const onEnded = (a: CallAudio) => {
      if (a.callId === call.id) stop();
    };
    const onChange = ({ call: changed }: { call: Call }) => {
      if (changed.id === call.id && isFinal(changed.state) && !audio) stop();
    };
    media.on('started', onStarted);
    media.on('ended', onEnded);
    this.o.calls.on('change', onChange);

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
        peer.send(JSON.stringify({ type: 'error', code: 'BAD_MESSAGE', message: 'Expected binary PCM or {"type":"clear"}' }));
      }
    });
    ws.on('error', (err) => log.warn({ err, callId: call.id }, 'media socket error'));
    ws.on('close', () => {
      this.sockets.delete(ws);
      media.off('started', onStarted);
      media.off('ended', onEnded);
      this.o.calls.off('change', onChange);
      stopListening?.();
      source?.remove();
      log.info({ callId: call.id, sourceId }, 'media socket closed');
    });
  }

  close(): void {
    for (const ws of this.sockets) ws.close(1001, 'gateway shutting down');
    this.wss.close();
  }
}
