import { useSyncExternalStore } from 'react';
import { MediaSession } from './media-session';

/**
 * Live audio begun outside the call page: "Answer" on the ringing toast answers and starts listening
 * and talking in the same click (a browser lets a page play sound and ask for the microphone from
 * a click), then opens the call, whose live-audio panel takes the session over.
 */
export interface StartedAudio {
  session: MediaSession;
  /** Why listening or talking could not start (most often: the microphone was refused), if so. */
  error: unknown;
  /** Settles once talking has started, or could not. */
  ready: Promise<void>;
}

const started = new Map<string, StartedAudio>();
const listeners = new Set<() => void>();
let version = 0;
const changed = (): void => {
  version += 1;
  listeners.forEach((l) => l());
};

/** Starts listening to the call and, once allowed, sending the microphone into it. */
export function startCallAudio(callId: string, mediaPath: string): StartedAudio {
  started.get(callId)?.session.close().catch(() => undefined);
  const noop = (): void => undefined;
  const session = new MediaSession(mediaPath, { onStatus: noop, onRemoteLevel: noop, onMicLevel: noop });
  const entry: StartedAudio = { session, error: null, ready: Promise.resolve() };
  entry.ready = session
    .start()
    .then(() => session.setTalking(true))
    .catch((err: unknown) => {
      entry.error = err;
    });
  started.set(callId, entry);
  changed();
  return entry;
}

/** The session begun for this call, handed to the caller (who closes it from now on). */
export function takeCallAudio(callId: string): StartedAudio | undefined {
  const entry = started.get(callId);
  if (entry) {
    started.delete(callId);
    changed();
  }
  return entry;
}

/** Stops audio begun for a call that was not answered after all. */
export function dropCallAudio(callId: string): void {
  void takeCallAudio(callId)?.session.close();
}

/** Changes whenever audio is begun or taken over, so the call page notices one begun while it is open. */
export const useStartedAudio = (): number =>
  useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => version,
  );
