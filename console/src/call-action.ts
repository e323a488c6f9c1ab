import { useState } from 'react';
import { api } from './api';

export type CallAction = 'answer' | 'reject' | 'hangup' | 'hold' | 'unhold';

/** Runs one control action on a call at a time, with the action under way and the API's error for the button that caused it. */
export function useCallAction(callId: string): { busy: CallAction | null; error: unknown; act: (action: CallAction) => void } {
  const [busy, setBusy] = useState<CallAction | null>(null);
  const [error, setError] = useState<unknown>(null);
  const act = (action: CallAction): void => {
    setBusy(action);
    setError(null);
    api.act(callId, action).then(
      () => setBusy(null),
      (err: unknown) => {
        setBusy(null);
        setError(err);
      },
    );
  };
  return { busy, error, act };
}
