import { meterLevel } from './pcm';
import workletUrl from './worklet?worker&url';

export type MediaStatus = 'idle' | 'connecting' | 'live' | 'ended' | 'error';

export interface MediaCallbacks {
  onStatus: (status: MediaStatus, detail?: string) => void;
  /** 0 to 1, for a meter. */
  onRemoteLevel: (level: number) => void;
  onMicLevel: (level: number) => void;
}

/**
 * The browser end of the media WebSocket (`/v1/calls/{callId}/media`, contract.md): plays the remote
 * party and, while talking, sends the microphone as 16 kHz PCM. Authenticated by the session cookie.
 */
export class MediaSession {
  /** The latest status, for a panel that takes over a session already under way. */
  status: MediaStatus = 'idle';
  detail: string | undefined;
  talking = false;
  private ws: WebSocket | null = null;
  private ctx: AudioContext | null = null;
  private playback: AudioWorkletNode | null = null;
  private speaker: GainNode | null = null;
  private capture: AudioWorkletNode | null = null;
  private mic: MediaStream | null = null;
  private micSource: MediaStreamAudioSourceNode | null = null;
  private closed = false;

  private cb: MediaCallbacks;

  constructor(
    private readonly path: string,
    callbacks: MediaCallbacks,
  ) {
    this.cb = this.remembering(callbacks);
  }

  /** Hands the session to other callbacks (the call page taking over a session the ringing toast began). */
  setCallbacks(callbacks: MediaCallbacks): void {
    this.cb = this.remembering(callbacks);
  }

  private remembering(callbacks: MediaCallbacks): MediaCallbacks {
    return {
      ...callbacks,
      onStatus: (status, detail) => {
        this.status = status;
        this.detail = detail;
        callbacks.onStatus(status, detail);
      },
    };
  }

  /** Must run from a user gesture (a click), so that the browser lets the page play audio. */
  async start(): Promise<void> {
    this.cb.onStatus('connecting');
    const ctx = new AudioContext({ latencyHint: 'interactive' });
    this.ctx = ctx;
    await ctx.audioWorklet.addModule(workletUrl);
    if (this.closed) return;
    const playback = new AudioWorkletNode(ctx, 'vg-playback', { numberOfInputs: 0, outputChannelCount: [1] });
    const speaker = ctx.createGain();
    playback.connect(speaker).connect(ctx.destination);
    playback.port.onmessage = (e: MessageEvent<{ type: 'level'; level: number }>) => this.cb.onRemoteLevel(meterLevel(e.data.level));
    this.playback = playback;
    this.speaker = speaker;
    await ctx.resume();

    const url = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}${this.path}`;
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
      if (typeof e.data !== 'string') {
        this.playback?.port.postMessage(e.data, [e.data]);
        return;
      }
      let message: { type?: string; message?: string };
      try {
        message = JSON.parse(e.data) as typeof message;
      } catch {
        return;
      }
      if (message.type === 'start') this.cb.onStatus('live');
      else if (message.type === 'stop') this.cb.onStatus('ended', 'The call ended.');
      else if (message.type === 'error') this.cb.onStatus('error', message.message ?? 'The gateway refused a message.');
    };
    ws.onclose = (e) => {
      if (this.closed) return;
      if (e.code === 1000) this.cb.onStatus('ended', 'The call ended.');
      else this.cb.onStatus('error', 'The audio connection closed. The call may have ended, or this gateway cannot stream audio yet.');
      void this.close(false);
    };
  }

  setSpeaker(on: boolean): void {
    if (this.speaker) this.speaker.gain.value = on ? 1 : 0;
  }

  /** Starts or stops sending the microphone into the call. */
  async setTalking(on: boolean): Promise<void> {
    if (!on) {
      this.stopMic();
      return;
    }
    const ctx = this.ctx;
    if (!ctx || this.capture) return;
    const mic = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 } });
    if (this.closed) {
      mic.getTracks().forEach((t) => t.stop());
      return;
    }
    const source = ctx.createMediaStreamSource(mic);
    const capture = new AudioWorkletNode(ctx, 'vg-capture', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit' });
    capture.port.onmessage = (e: MessageEvent<ArrayBuffer | { type: 'level'; level: number }>) => {
      if (e.data instanceof ArrayBuffer) {
        if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(e.data);
      } else this.cb.onMicLevel(meterLevel(e.data.level));
    };
    source.connect(capture);
    this.mic = mic;
    this.micSource = source;
    this.capture = capture;
    this.talking = true;
  }

  private stopMic(): void {
    this.talking = false;
    this.micSource?.disconnect();
    this.capture?.port.close();
    this.capture?.disconnect();
    this.mic?.getTracks().forEach((t) => t.stop());
    this.mic = null;
    this.micSource = null;
    this.capture = null;
    this.cb.onMicLevel(0);
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: 'clear' }));
  }

  async close(closeSocket = true): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopMic();
    if (closeSocket) this.ws?.close(1000, 'closed by the console');
    this.ws = null;
    this.playback?.disconnect();
    this.cb.onRemoteLevel(0);
    await this.ctx?.close().catch(() => undefined);
    this.ctx = null;
  }
}
