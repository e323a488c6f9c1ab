import { FINAL_CALL_STATES } from '../calls/state.js';
import type { CommandMessage, Direction, PhoneCallState, PhoneEventName, SimInfo } from './protocol.js';

/** The simulator's view of its one call. */
export interface SimCall {
  nativeCallId: string;
  callId?: string;
  direction: Direction;
  remoteNumber: string;
  state: PhoneCallState;
  /** The SIM slot an outgoing call was placed from, when the phone reports its SIMs. */
  sim?: number;
}

export type CommandEffect =
  | { kind: 'dial'; callId: string; to: string; sim?: number }
  | { kind: 'event'; event: PhoneEventName; state: PhoneCallState; payload: Record<string, unknown> }
  | { kind: 'dtmf'; digits: string };

export type CommandDecision =
  | { ok: true; effect: CommandEffect }
  | { ok: false; error: { code: string; message: string } };

export const FINAL_STATES: ReadonlySet<PhoneCallState> = new Set(FINAL_CALL_STATES);

const DTMF_DIGITS = /^[0-9*#]+$/;
const DIALABLE_NUMBER = /^\+?[0-9]+([,;][0-9*#,;]*)?$/;

const refuse = (code: string, message: string): CommandDecision => ({ ok: false, error: { code, message } });
const event = (e: PhoneEventName, state: PhoneCallState, payload: Record<string, unknown> = {}): CommandDecision => ({
  ok: true,
  effect: { kind: 'event', event: e, state, payload },
});

/**
 * What a phone does with a command, given its current call: the refusal for the `ack`, or the
 * effect to apply after a positive `ack`. The codes are the phone's refusal codes of
 * docs/phone-protocol.md, the same as the Android app's: DEVICE_BUSY and INVALID_STATE mean what they
 * mean in contract.md, NO_CALL that the phone has no call of that id, BAD_COMMAND a command it cannot read.
 */
export function decideCommand(
  call: Readonly<SimCall> | null,
  cmd: Pick<CommandMessage, 'action' | 'callId' | 'payload'>,
  sims?: readonly SimInfo[],
): CommandDecision {
  if (cmd.action === 'dial') {
    if (call) return refuse('DEVICE_BUSY', `the phone already has a call (${call.callId ?? call.nativeCallId}, ${call.state})`);
    const to = cmd.payload['to'];
    if (typeof to !== 'string' || to.trim() === '') return refuse('BAD_COMMAND', 'dial needs payload.to');
    if (cmd.callId === '') return refuse('BAD_COMMAND', 'dial needs a callId');
    // As the Android app: no service codes (a * or # before the first pause), see src/calls/dialable.ts.
    if (!DIALABLE_NUMBER.test(to.trim())) return refuse('BAD_COMMAND', 'the phone dials numbers only; service codes such as *#06# are not dialled');
    if (!sims) return { ok: true, effect: { kind: 'dial', callId: cmd.callId, to } };
    const sim = pickSim(sims, cmd.payload['sim']);
    if (!sim.ok) return sim;
    return { ok: true, effect: { kind: 'dial', callId: cmd.callId, to, ...(sim.slot !== undefined ? { sim: sim.slot } : {}) } };
  }
  if (!['answer', 'reject', 'hangup', 'hold', 'unhold', 'dtmf'].includes(cmd.action)) {
    return refuse('BAD_COMMAND', `unknown action ${JSON.stringify(cmd.action)}`);
  }
  // An incoming call has no callId until its event.ack; a command naming a call then means this one.
  if (!call || (call.callId !== undefined && call.callId !== cmd.callId)) {
    return refuse('NO_CALL', `the phone has no call ${cmd.callId}`);
  }
  const ringingIncoming = call.direction === 'incoming' && call.state === 'ringing';
  switch (cmd.action) {
    case 'answer':
      return ringingIncoming ? event('call.active', 'active') : refuse('INVALID_STATE', `cannot answer a call that is ${call.direction} and ${call.state}`);
    case 'reject':
      return ringingIncoming ? event('call.rejected', 'rejected') : refuse('INVALID_STATE', `cannot reject a call that is ${call.direction} and ${call.state}`);
    case 'hangup':
      return event('call.disconnected', 'ended', { cause: ringingIncoming ? 'rejected' : 'local' });
    case 'hold':
      return call.state === 'active' ? event('call.holding', 'held') : refuse('INVALID_STATE', `cannot hold a call that is ${call.state}`);
    case 'unhold':
      return call.state === 'held' ? event('call.active', 'active') : refuse('INVALID_STATE', `cannot unhold a call that is ${call.state}`);
    default: {
      const digits = cmd.payload['digits'];
      if (typeof digits !== 'string' || !DTMF_DIGITS.test(digits)) return refuse('BAD_COMMAND', 'dtmf needs payload.digits matching ^[0-9*#]+$');
      if (call.state !== 'active' && call.state !== 'held') return refuse('INVALID_STATE', `cannot send tones on a call that is ${call.state}`);
      return { ok: true, effect: { kind: 'dtmf', digits } };
    }
  }
}

/**
 * The SIM a dial uses, as a phone that reports its SIMs picks it (extension 1.4): the slot asked
 * for, refused with SIM_UNAVAILABLE when it holds no usable SIM (the gateway checks the phone's last
 * report, but a SIM can go between two reports); with no slot, the default SIM, else the first usable,
 * else none (the platform's own choice).
 */
function pickSim(sims: readonly SimInfo[], asked: unknown): { ok: true; slot: number | undefined } | { ok: false; error: { code: string; message: string } } {
  if (asked === undefined) {
    const chosen = sims.find((s) => s.defaultForCalls && s.usable) ?? sims.find((s) => s.usable);
    return { ok: true, slot: chosen?.slot };
  }
  if (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 0) return { ok: false, error: { code: 'BAD_COMMAND', message: 'dial payload.sim must be a slot number (0, 1, ...)' } };
  const sim = sims.find((s) => s.slot === asked);
  if (!sim || !sim.usable) return { ok: false, error: { code: 'SIM_UNAVAILABLE', message: sim ? `the SIM in slot ${asked} cannot place calls now` : `no SIM in slot ${asked}` } };
  return { ok: true, slot: asked };
}
