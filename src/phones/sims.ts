import { z } from 'zod';
import { GatewayError } from '../errors.js';
import { text } from '../text.js';

/**
 * Extension 1.4 of the phone protocol (docs/phone-protocol.md): the phone's SIMs, and the slot a
 * call is placed from. Slots are the phone's SIM slot indexes (Android's
 * SubscriptionInfo.getSimSlotIndex, 0-based); no phone sold has more than a few, 8 bounds them.
 */
export const SIM_SLOT_MAX = 7;

export const SimSlot = z.number().int().min(0).max(SIM_SLOT_MAX);

export const SimInfo = z
  .object({
    slot: SimSlot.describe('the SIM slot index, 0 for the first'),
    carrier: text().max(100).optional().describe("the carrier's name as the SIM or network gives it"),
    number: text().max(64).optional().describe("the SIM's phone number, when the phone can read it (many SIMs do not carry it)"),
    defaultForCalls: z.boolean().describe('the phone places calls from this SIM when no slot is asked for'),
    usable: z.boolean().describe('the SIM is present, ready and can place calls now'),
  })
  .describe('one SIM of the phone');
export type SimInfo = z.infer<typeof SimInfo>;

export const SimList = z
  .array(SimInfo)
  .max(SIM_SLOT_MAX + 1)
  .refine((sims) => new Set(sims.map((s) => s.slot)).size === sims.length, 'each slot appears once')
  .describe('extension: the SIMs the phone reported (slot, carrier, number when readable, default for calls, usable); absent when the phone does not report them');

/** The phone's code (ack `ok: false`) and the gateway's for a slot with no usable SIM. */
export const SIM_UNAVAILABLE = 'SIM_UNAVAILABLE';
/** The gateway's code for a `sim` asked of a phone that never reported its SIMs. */
export const SIM_NOT_SUPPORTED = 'SIM_NOT_SUPPORTED';

/**
 * Why the gateway will not dial from `slot`, judged by the phone's latest report, or undefined when
 * the slot has a usable SIM. A phone that never reported `sims` predates the extension: it would
 * ignore `sim` and dial from whatever SIM it likes, so the call is refused rather than placed from a
 * SIM the client did not ask for.
 */
export function simRefusal(sims: readonly SimInfo[] | undefined, slot: number): GatewayError | undefined {
  if (sims === undefined) {
    return new GatewayError(SIM_NOT_SUPPORTED, 'The phone has not reported its SIMs (its app predates SIM choice), so it cannot place a call from a given SIM; leave out `sim` or update the app');
  }
  const sim = sims.find((s) => s.slot === slot);
  if (!sim) return new GatewayError(SIM_UNAVAILABLE, `The phone has no SIM in slot ${slot} (reported slots: ${sims.map((s) => s.slot).join(', ') || 'none'})`);
  if (!sim.usable) return new GatewayError(SIM_UNAVAILABLE, `The SIM in slot ${slot}${sim.carrier ? ` (${sim.carrier})` : ''} cannot place calls now (absent, locked or not registered)`);
  return undefined;
}
