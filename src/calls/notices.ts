import type { Call, CallEvent } from './model.js';
import type { CallState } from './state.js';

export interface CallChange {
  call: Call;
  /** The timeline event that moved it, if any. */
  event?: CallEvent;
  previousState: CallState | null;
}

/** A call whose phone came back naming it, on a node that was not serving its audio (another node died, or this one restarted). */
export interface ResumedCall {
  call: Call;
  /** Its agent stream was detached (DELETE …/stream): it stays closed. */
  streamDetached: boolean;
}

/** What the call service emits (see CallService). */
export interface CallEvents {
  change: [CallChange];
  incoming: [Call];
  dtmf: [callId: string, digits: string];
  resumed: [ResumedCall];
  released: [Call];
}

/**
 * How the parts of the call domain (commands, the recorder, the phone's side) tell the call
 * service's listeners; the call service delivers each to every listener on its own.
 */
export interface CallNotices {
  change(change: CallChange): void;
  incoming(call: Call): void;
  resumed(resumed: ResumedCall): void;
  released(call: Call): void;
  dtmf(callId: string, digits: string): void;
}
