import type { EventName } from './state.js';

/**
 * Why a call ended (pure). The phone reports `payload.cause` on `call.disconnected`
 * (phone-protocol.md): `local` (hung up on this line: by the API, the console or on the handset),
 * `remote` (the other party hung up), `busy`, `rejected` (declined), `missed` (nobody answered),
 * `error`, `other`. `call.rejected` and `call.failed` are causes of their own.
 */
export const END_CAUSES = ['local', 'remote', 'busy', 'rejected', 'missed', 'failed', 'error', 'other'] as const;
export type EndCause = (typeof END_CAUSES)[number];

const PHONE_CAUSES: ReadonlySet<string> = new Set<EndCause>(['local', 'remote', 'busy', 'rejected', 'missed', 'error', 'other']);
const MAX_REASON = 500;

/** The cause and free-text reason of the event that ends a call, or null for an event that ends none. */
export function endOf(event: EventName, payload: Record<string, unknown>): { cause: EndCause; reason: string | null } | null {
  const text = typeof payload.reason === 'string' && payload.reason.trim() !== '' ? payload.reason.trim().slice(0, MAX_REASON) : null;
  switch (event) {
    case 'call.disconnected': {
      const cause = typeof payload.cause === 'string' && PHONE_CAUSES.has(payload.cause) ? (payload.cause as EndCause) : 'other';
      return { cause, reason: text };
    }
    case 'call.rejected':
      return { cause: 'rejected', reason: text };
    case 'call.failed':
      return { cause: 'failed', reason: text };
    default:
      return null;
  }
}
