import type { AudioDrops } from '../audio/drops.js';
import type { PhoneConnection } from './connection.js';

/** What hears a phone's audio frames: the call whose audio is live on that phone (media's CallAudio). */
export interface PhoneFrameReceiver {
  /** A 640-byte frame from the phone (the connection drops frames of any other size). */
  fromPhone(frame: Buffer): void;
}

/**
 * One phone's call audio, both ways, as the media router holds it: the frames of whichever socket
 * the phone has now go to its receiver, and `send` writes to that socket. The hub keeps it current
 * across the phone's reconnections, so the audio path holds it and looks nothing up per frame.
 */
export class PhoneAudioPort implements PhoneFrameReceiver {
  /** The phone's socket on this node, if it has one; kept current by the hub. */
  connection: PhoneConnection | undefined;
  /** Where the phone's frames go: set by the media router while a call's audio is live on the phone. */
  receiver: PhoneFrameReceiver | undefined;

  constructor(
    readonly deviceId: string,
    private readonly drops: AudioDrops,
  ) {}

  fromPhone(frame: Buffer): void {
    const receiver = this.receiver;
    if (receiver) receiver.fromPhone(frame);
    else this.drops.noCallFrames += 1;
  }

  /** A frame to the phone; false when it has no open socket here (the frame is not sent). */
  send(frame: Buffer): boolean {
    return this.connection?.sendAudio(frame) ?? false;
  }
}
