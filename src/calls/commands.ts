import { randomUUID } from 'node:crypto';
import { GatewayError, notFound } from '../errors.js';
import type { Logger } from '../log.js';
import type { Command, DeviceService, PhoneHub } from '../phones/index.js';
import { simRefusal } from '../phones/sims.js';
import type { CallRow, CallsRepo } from '../store/index.js';
import type { CallLog } from './call-log.js';
import type { DeviceLocks } from './device-locks.js';
import { presentCall, type Call, type StreamConfig } from './model.js';
import type { CallNotices } from './notices.js';
import type { CallRecorder } from './recorder.js';
import { actionRefusal, type CallAction } from './state.js';

export interface PlaceCallInput {
  deviceId: string;
  to: string;
  webhookUrl?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  stream?: StreamConfig | undefined;
  /** Extension: the SIM slot to dial from (docs/api.md); the phone's default when absent. */
  sim?: number | undefined;
}

/** A command for the phone, with a fresh id the phone's ack names. */
export const newCommand = (callId: string, action: Command['action'], payload: Record<string, unknown>): Command => ({
  type: 'command',
  commandId: randomUUID(),
  callId,
  action,
  payload,
});

/** What the API asks of a call: place it, or act on it (answer, hang up, hold, digits…), through the phone hub. */
export class CallCommands {
  constructor(
    private readonly o: {
      repo: CallsRepo;
      calls: CallLog;
      recorder: CallRecorder;
      devices: DeviceService;
      hub: PhoneHub;
      locks: DeviceLocks;
      notices: CallNotices;
      log: Logger;
    },
  ) {}

  async place(input: PlaceCallInput): Promise<{ call: Call; command: Command }> {
    if (!(await this.o.devices.exists(input.deviceId))) throw notFound('Phone');
    return this.o.locks.run(input.deviceId, async () => {
      await this.refuseUnfit(input);
      const row = this.o.calls.newRow({
        device_id: input.deviceId,
        remote_number: input.to,
        direction: 'outgoing',
        state: 'queued',
        native_call_id: null,
        webhook_url: input.webhookUrl ?? null,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        stream: input.stream ? JSON.stringify(input.stream) : null,
      });
      await this.o.calls.insertUnique(row, (fresh) => this.o.repo.insert(fresh));
      this.o.log.info({ callId: row.id, deviceId: row.device_id }, 'call placed');
      this.o.notices.change({ call: presentCall(row), previousState: null });
      const command = newCommand(row.id, 'dial', { to: input.to, ...(input.sim !== undefined ? { sim: input.sim } : {}) });
      try {
        await this.o.hub.sendCommand(input.deviceId, command);
      } catch (err) {
        await this.failUndialled(row, err);
        throw err;
      }
      return { call: await this.o.calls.get(row.id), command };
    });
  }

  /** Why the phone cannot take a new call now: offline, no such usable SIM, or a call in progress. */
  private async refuseUnfit(input: PlaceCallInput): Promise<void> {
    if (!this.o.hub.connected(input.deviceId)) throw new GatewayError('DEVICE_OFFLINE', 'The phone is not connected to the gateway');
    if (input.sim !== undefined) {
      const refusal = simRefusal(await this.o.devices.sims(input.deviceId), input.sim);
      if (refusal) throw refusal;
    }
    const busy = await this.o.repo.openCalls(input.deviceId);
    if (busy.length > 0) throw new GatewayError('DEVICE_BUSY', `The phone already has a call in progress (${busy[0]?.id})`);
  }

  /** A dial the phone never took: the call is failed at once so it does not keep the phone busy. */
  private async failUndialled(row: CallRow, err: unknown): Promise<void> {
    const reason = err instanceof GatewayError ? `${err.code}: ${err.message}` : 'dial failed';
    this.o.log.warn({ callId: row.id, deviceId: row.device_id, reason }, 'dial not acknowledged');
    await this.o.recorder.gatewayEvent(row.id, 'call.failed', { reason, source: 'gateway' });
    if (err instanceof GatewayError && err.code === 'DEVICE_TIMEOUT') {
      // The phone may still have received it; ask it to drop the call.
      this.o.hub.sendCommand(row.device_id, newCommand(row.id, 'hangup', {})).catch(() => undefined);
    }
  }

  async act(callId: string, action: CallAction | 'dtmf', payload: Record<string, unknown> = {}): Promise<{ call: Call; command: Command }> {
    const row = await this.o.calls.row(callId);
    const refusal = actionRefusal(action, row);
    if (refusal) throw new GatewayError('INVALID_STATE', `Cannot ${action}: ${refusal} (the call is ${row.state})`);
    const command = newCommand(callId, action, payload);
    await this.o.hub.sendCommand(row.device_id, command);
    this.o.log.info({ callId, deviceId: row.device_id, action }, 'command acknowledged');
    if (action === 'dtmf') await this.o.calls.recordDtmfSent(row, command);
    return { call: await this.o.calls.get(callId), command };
  }
}
