import type { ModelFailureKind } from './connection.js';
import type { PlayoutSource } from '../media/index.js';
import type { AssistantStatus } from './model.js';
import type { RealtimeClient } from './realtime/index.js';

/** Why a bridge failed: the words for the operator, and the kind of failure to reach the model (`other` for any failure after). */
export interface BridgeFailure {
  error: string;
  kind: ModelFailureKind;
}

/**
 * Where a bridge is in its life. Only `live` bridges audio both ways; `draining` plays what is
 * queued (the goodbye, or after a `failure` the failure tone) and then hangs up; `failed` is a
 * failure before the call's audio was bridged (nothing to play, the call is left alone).
 */
export type Lifecycle =
  | { phase: 'idle' }
  | { phase: 'connecting'; client?: RealtimeClient }
  | { phase: 'ready'; client: RealtimeClient }
  | { phase: 'live'; client: RealtimeClient; source: PlayoutSource; unlisten: () => void }
  | { phase: 'draining'; client: RealtimeClient | undefined; source: PlayoutSource | undefined; hangup: () => void; failure?: BridgeFailure }
  | ({ phase: 'failed' } & BridgeFailure)
  | { phase: 'stopped' };

export type BridgePhase = Lifecycle['phase'];

const STATUS_OF_PHASE: Record<Exclude<BridgePhase, 'draining'>, AssistantStatus> = { idle: 'waiting', connecting: 'connecting', ready: 'connecting', live: 'live', failed: 'error', stopped: 'ended' };

/** A draining bridge plays the failure tone (`error`), a goodbye (`live`), or, hanging up before it was bridged, nothing (still `connecting`). */
function drainingStatus(life: Extract<Lifecycle, { phase: 'draining' }>): AssistantStatus {
  if (life.failure) return 'error';
  return life.source ? 'live' : 'connecting';
}

/** The status the API shows, read from where the bridge is in its life (never stored beside it). */
export function statusOf(life: Lifecycle): AssistantStatus {
  return life.phase === 'draining' ? drainingStatus(life) : STATUS_OF_PHASE[life.phase];
}
