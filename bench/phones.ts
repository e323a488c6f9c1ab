import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { BYTES_PER_SAMPLE, FRAME_BYTES, SAMPLE_RATE } from '../src/audio/constants.js';
import { endpointUrl, epochNow, FrameClock, pcmLoopSource, writeStamp } from '../src/simulator/index.js';
import type { AudioSource, CommandMessage, EventMessage, GatewayMessage, PhoneCredentials } from '../src/simulator/index.js';
import type { CallTrack } from './tracks.js';

/*
 * The bench's phones. Both targets get the same load per frame: the simulator's frame clock, a
 * looped WAV, a stamp per frame and its send time recorded, one socket. What differs is only what a
 * target needs besides the audio: the gateway's phone speaks the least of the phone protocol
 * (hello, the dial's ack and events), the relay's phone nothing. (A full PhoneSimulator per phone,
 * as the bench used before, did several times the relay phone's garbage collection, and its pauses
 * were counted against the gateway: the agent that stamps arrivals lives in the same process.)
 */

/** About a second of audio unsent: a phone further behind drops frames (counted), as the simulator does. */
const MAX_BUFFERED_BYTES = SAMPLE_RATE * BYTES_PER_SAMPLE;
/** How long the bench's callee rings before it answers. */
const RING_MS = 100;

/** One phone's audio: 640-byte stamped frames every 20 ms while `start`ed, and what comes back. */
abstract class FramePhone {
  framesDropped = 0;
  private sentFrames = 0;
  private readonly clock = new FrameClock(() => this.sendFrame());
  private readonly source: AudioSource;

  protected constructor(
    pcm: Buffer,
    private readonly track: CallTrack,
    private readonly onAudio: (frame: Buffer) => void,
  ) {
    this.source = pcmLoopSource(pcm);
  }

  protected abstract get socket(): WebSocket;

  protected startAudio(): void {
    this.clock.start();
  }

  protected stopAudio(): void {
    this.clock.stop();
  }

  protected received(data: Buffer): void {
    this.onAudio(data);
  }

  private sendFrame(): void {
    const ws = this.socket;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.framesDropped++;
      return;
    }
    // ws may keep the buffer it is given, so each frame is its own.
    const frame = Buffer.allocUnsafe(FRAME_BYTES);
    this.source.fill(frame);
    writeStamp(frame, this.sentFrames);
    ws.send(frame);
    this.track.sent(this.sentFrames, epochNow());
    this.sentFrames++;
  }

  close(): void {
    this.clock.stop();
    this.socket.terminate();
  }
}

/** The relay's phone: a plain socket to the relay, which forwards it to its agent. */
export class RelayPhone extends FramePhone {
  protected readonly socket: WebSocket;

  constructor(url: string, pcm: Buffer, track: CallTrack, onAudio: (frame: Buffer) => void) {
    super(pcm, track, onAudio);
    this.socket = new WebSocket(url, { perMessageDeflate: false });
    this.socket.on('open', () => this.startAudio());
    this.socket.on('message', (data, isBinary) => {
      if (isBinary) this.received(data as Buffer);
    });
    this.socket.on('error', () => this.stopAudio());
    this.socket.on('close', () => this.stopAudio());
  }
}

/**
 * The gateway's phone: a paired phone's socket that says hello, acknowledges every command and
 * answers a `dial` as a callee who picks up after RING_MS (`call.dialing`, then `call.active`),
 * streams while its call is active and stops at a `hangup`. Nothing more of docs/phone-protocol.md:
 * no outbox, no health, no reconnecting; a bench run that loses a socket fails on its counts.
 */
export class GatewayPhone extends FramePhone {
  protected readonly socket: WebSocket;
  readonly welcomed: Promise<void>;
  private call: { callId: string; nativeCallId: string; to: string } | undefined;
  private ringTimer: NodeJS.Timeout | undefined;

  constructor(gatewayUrl: string, credentials: PhoneCredentials, pcm: Buffer, track: CallTrack, onAudio: (frame: Buffer) => void) {
    super(pcm, track, onAudio);
    this.socket = new WebSocket(endpointUrl(gatewayUrl, '/v1/phone', 'ws'), {
      headers: { Authorization: `Bearer ${credentials.deviceToken}` },
      perMessageDeflate: false,
    });
    this.welcomed = new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.once('close', (code) => reject(new Error(`phone socket closed before welcome (${code})`)));
      this.socket.on('message', (data, isBinary) => {
        if (isBinary) return this.received(data as Buffer);
        const message = JSON.parse((data as Buffer).toString('utf8')) as GatewayMessage;
        if (message.type === 'welcome') resolve();
        else if (message.type === 'command') this.onCommand(message);
      });
    });
    this.socket.on('open', () => this.socket.send(JSON.stringify({ type: 'hello', appVersion: 'bench' })));
    this.socket.on('close', () => {
      clearTimeout(this.ringTimer);
      this.stopAudio();
    });
  }

  private onCommand(command: CommandMessage): void {
    this.socket.send(JSON.stringify({ type: 'ack', commandId: command.commandId, ok: true }));
    if (command.action === 'dial' && !this.call) {
      const call = { callId: command.callId, nativeCallId: `bench-${randomUUID()}`, to: String(command.payload['to']) };
      this.call = call;
      this.event('call.dialing');
      this.ringTimer = setTimeout(() => {
        this.event('call.active');
        this.startAudio();
      }, RING_MS);
    } else if (command.action === 'hangup' && this.call) {
      clearTimeout(this.ringTimer);
      this.stopAudio();
      this.event('call.disconnected', { cause: 'local' });
      this.call = undefined;
    }
  }

  private event(event: EventMessage['event'], payload: Record<string, unknown> = {}): void {
    const call = this.call;
    if (!call) return;
    const message: EventMessage = {
      type: 'event',
      eventId: randomUUID(),
      event,
      nativeCallId: call.nativeCallId,
      callId: call.callId,
      direction: 'outgoing',
      remoteNumber: call.to,
      occurredAt: new Date().toISOString(),
      payload,
    };
    this.socket.send(JSON.stringify(message));
  }
}
