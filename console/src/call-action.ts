import { useState } from 'react';
import { mediaPath } from '../../src/calls/model.js';
import type { CallAction } from '../../src/calls/state.js';
import { api } from './api';
import { dropCallAudio, startCallAudio } from './audio/call-audio';

/** The API's call actions (src/calls/state.ts), dtmf aside. */
export type { CallAction };

/**
 * Runs a control action. "Answer" is a phone's answer: live audio starts both ways in the same
 * click (listening at once, talking once the browser allows the microphone; see audio/call-audio.ts).
 */
export function runCallAction(callId: string, action: CallAction): Promise<unknown> {
  if (action !== 'answer') return api.act(callId, action);
  startCallAudio(callId, mediaPath(callId));
  return api.act(callId, 'answer').catch((err: unknown) => {
    dropCallAudio(callId);
    throw err;
  });
}

/** Runs one control action on a call at a time, with the action under way and the API's error for the button that caused it. */
export function useCallAction(callId: string): { busy: CallAction | null; error: unknown; act: (action: CallAction) => Promise<boolean> } {
  const [busy, setBusy] = useState<CallAction | null>(null);
  const [error, setError] = useState<unknown>(null);
  const act = (action: CallAction): Promise<boolean> => {
    setBusy(action);
    setError(null);
    return runCallAction(callId, action).then(
      () => {
        setBusy(null);
        return true;
      },
      (err: unknown) => {
        setBusy(null);
        setError(err);
        return false;
      },
    );
  };
  return { busy, error, act };
}
