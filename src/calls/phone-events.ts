import type { Logger } from '../log.js';
import type { DtmfMessage, HelloMessage, PhoneEvent, PhoneEventSink, PhoneHub } from '../phones/index.js';
import type { CallRow, CallsRepo } from '../store/index.js';
import type { AbsentPhones } from './absent-phones.js';
import type { CallLog } from './call-log.js';
import { fromMicros } from './created-at.js';
import { newCommand } from './commands.js';
import type { DeviceLocks } from './device-locks.js';
import { presentCall } from './model.js';
import type { CallNotices } from './notices.js';
import type { CallRecorder } from './recorder.js';
import { isFinal } from './state.js';

export interface PhoneEventApplierOptions {
  repo: CallsRepo;
  calls: CallLog;
  recorder: CallRecorder;
  absent: AbsentPhones;
  hub: PhoneHub;
  locks: DeviceLocks;
  notices: CallNotices;
  log: Logger;
  /**
   * How long after a `hello` the gateway waits before ending calls the phone no longer has, so that
   * the phone's own events, resent from its outbox right after the hello, end them with their true cause.
   */
  reconcileDelayMs: number;
}

type CallOnPhone = NonNullable<HelloMessage['call']>;

/**
 * The phone's side of the call domain (the hub's sink): applies each phone event once, under the
 * phone's lock; reconciles a `hello` with the calls the gateway holds open (the call it names goes
 * on, `resumed`; the others end unless the phone's own events end them first); passes keypad digits
 * on; hands a closed socket to the absent phones' grace period.
 */
export class PhoneEventApplier implements PhoneEventSink {
  private readonly reconcileTimers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly o: PhoneEventApplierOptions) {}

  stop(): void {
    this.stopped = true;
    for (const timer of this.reconcileTimers) clearTimeout(timer);
    this.reconcileTimers.clear();
  }

  /**
   * Runs under the phone's lock, so a grace period that expires as the phone returns has either
   * ended its calls before the hello is looked at (and the phone is told to hang up) or not at all.
   */
  onHello(deviceId: string, hello: HelloMessage): Promise<void> {
    // Calls placed after this instant were dialled on this very socket; the hello cannot name them.
    const helloAt = fromMicros(Date.now() * 1000);
    this.o.absent.cancelGrace(deviceId);
    return this.o.locks.run(deviceId, () => this.reconcileHello(deviceId, hello, helloAt));
  }

  private async reconcileHello(deviceId: string, hello: HelloMessage, helloAt: string): Promise<void> {
    const onPhone = hello.call ?? null;
    if (onPhone) await this.resume(deviceId, onPhone);
    if (onPhone?.callId) await this.hangUpIfEnded(deviceId, onPhone.callId);
    const missing = (await this.o.repo.openCalls(deviceId))
      .filter((call) => call.created_at < helloAt)
      .filter((call) => !(onPhone && (onPhone.callId === call.id || (call.native_call_id !== null && onPhone.nativeCallId === call.native_call_id))))
      .map((call) => call.id);
    if (missing.length > 0) this.reconcileLater(deviceId, missing);
  }

  /** The call the hello names goes on: if it is answered, its audio and agent stream are taken up again where they are not held. */
  private async resume(deviceId: string, onPhone: CallOnPhone): Promise<void> {
    const row = (onPhone.callId ? await this.o.repo.get(onPhone.callId) : undefined) ?? (await this.o.repo.byNativeId(deviceId, onPhone.nativeCallId));
    if (!row || row.device_id !== deviceId || (row.state !== 'active' && row.state !== 'held')) return;
    this.o.notices.resumed({ call: presentCall(row), streamDetached: Boolean(row.stream_detached_at) });
  }

  /** The gateway already ended the call the phone still holds (the phone stayed away too long): free the line. */
  private async hangUpIfEnded(deviceId: string, callId: string): Promise<void> {
    const known = await this.o.repo.get(callId);
    if (!known || known.device_id !== deviceId || !isFinal(known.state)) return;
    this.o.log.info({ callId: known.id, deviceId }, 'phone still holds a call that has ended; asking it to hang up');
    this.o.hub.sendCommand(deviceId, newCommand(known.id, 'hangup', {})).catch((err: unknown) =>
      this.o.log.warn({ err, callId: known.id, deviceId }, 'hangup of an ended call failed'),
    );
  }

  /** After the reconcile delay, ends the calls the hello did not name, if the phone is still here. */
  private reconcileLater(deviceId: string, missing: string[]): void {
    const stillHere = () => !this.stopped && this.o.hub.connected(deviceId);
    const timer = setTimeout(() => {
      this.reconcileTimers.delete(timer);
      if (!stillHere()) return;
      // What the phone sent within the window is applied first, even when it still waits behind the
      // gateway's own work on the hello (a slow database): its outbox ends calls with their true cause.
      void this.o.hub
        .applied(deviceId)
        .then(() => (stillHere() ? this.reconcile(deviceId, missing) : undefined))
        .catch((err: unknown) => this.o.log.error({ err, deviceId }, 'reconcile failed'));
    }, this.o.reconcileDelayMs);
    this.reconcileTimers.add(timer);
  }

  /** Ends the calls a phone's `hello` did not name, unless its own events have ended them meanwhile. */
  private reconcile(deviceId: string, callIds: string[]): Promise<void> {
    return this.o.locks.run(deviceId, async () => {
      for (const callId of callIds) {
        const call = await this.o.repo.get(callId);
        if (!call || isFinal(call.state)) continue;
        this.o.log.info({ callId, deviceId }, 'phone no longer has the call; ending it');
        await this.o.recorder.gatewayEvent(callId, 'call.disconnected', { cause: 'other', reason: 'the phone no longer has this call', source: 'gateway' });
      }
    });
  }

  onEvent(deviceId: string, event: PhoneEvent): Promise<string | null> {
    return this.o.locks.run(deviceId, () => this.apply(deviceId, event));
  }

  /** Keypad digits the remote party pressed (protocol extension 1.1); not stored, passed to listeners. */
  onDtmf(deviceId: string, message: DtmfMessage): void {
    void (async () => {
      const row = (message.callId ? await this.o.repo.get(message.callId) : undefined) ?? (await this.o.repo.byNativeId(deviceId, message.nativeCallId));
      if (!row || row.device_id !== deviceId) return;
      this.o.log.info({ callId: row.id, deviceId, digits: message.digits.length }, 'remote party pressed keys');
      this.o.notices.dtmf(row.id, message.digits);
    })().catch((err: unknown) => this.o.log.warn({ err, deviceId }, 'dtmf report failed'));
  }

  onDisconnected(deviceId: string): void {
    this.o.absent.onDisconnected(deviceId);
  }

  /** The call an event belongs to; a new incoming call (not stored yet) for a first ring. */
  private async findCall(deviceId: string, event: PhoneEvent): Promise<{ row: CallRow; isNew: boolean } | undefined> {
    if (event.callId) {
      const row = await this.o.repo.get(event.callId);
      if (row && row.device_id === deviceId) return { row, isNew: false };
    }
    const byNative = await this.o.repo.byNativeId(deviceId, event.nativeCallId);
    const startsCall = event.event === 'call.ringing' || event.event === 'call.simulated_ringing';
    if (byNative && !(startsCall && isFinal(byNative.state) && !event.callId)) return { row: byNative, isNew: false };
    if (startsCall && !event.callId && event.direction !== 'outgoing') return { row: this.newIncoming(deviceId, event), isNew: true };
    return undefined;
  }

  private newIncoming(deviceId: string, event: PhoneEvent): CallRow {
    return this.o.calls.newRow({
      device_id: deviceId,
      remote_number: event.remoteNumber ?? 'unknown',
      direction: 'incoming',
      state: 'ringing',
      native_call_id: event.nativeCallId,
      webhook_url: null,
      metadata: null,
      stream: null,
    });
  }

  private async apply(deviceId: string, event: PhoneEvent): Promise<string | null> {
    const seen = await this.o.repo.eventById(deviceId, event.eventId);
    if (seen) return seen.call_id;
    const found = await this.findCall(deviceId, event);
    if (!found) {
      this.o.log.warn({ deviceId, eventId: event.eventId, event: event.event }, 'event for no known call; acknowledged and dropped');
      return null;
    }
    const { row, isNew } = found;
    if (event.event === 'call.disconnected' && row.state === 'ended') {
      // The call ended once already (the gateway ended it while the phone was away, or sent the
      // hangup of a call the phone still held): one call.disconnected per timeline and per webhook.
      this.o.log.info({ callId: row.id, deviceId, eventId: event.eventId, payload: event.payload }, 'call already ended; the phone\'s own call.disconnected is acknowledged, not stored');
      return row.id;
    }
    if (isNew) this.o.log.info({ callId: row.id, deviceId, remoteNumber: row.remote_number }, 'incoming call');
    const { event: name, eventId, payload, occurredAt, nativeCallId } = event;
    await this.o.recorder.record(row, { event: name, eventId, payload, occurredAt, nativeCallId }, isNew);
    const call = await this.o.calls.get(row.id);
    if (isNew && call.state === 'ringing' && event.event !== 'call.simulated_ringing') this.o.notices.incoming(call);
    return row.id;
  }
}
