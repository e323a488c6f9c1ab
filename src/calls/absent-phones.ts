import type { Logger } from '../log.js';
import type { PhoneDirectory, PhoneHub } from '../phones/index.js';
import type { CallsRepo } from '../store/index.js';
import type { DeviceLocks } from './device-locks.js';
import { presentCall } from './model.js';
import type { CallNotices } from './notices.js';
import type { CallRecorder } from './recorder.js';

/**
 * Runs work that no other gateway runs for the same name at the same time (several gateways on one
 * database: store.exclusively); one gateway runs it at once (`runHere`).
 */
export type Exclusive = <T>(work: () => Promise<T>, name: string) => Promise<T>;

export const runHere: Exclusive = (work) => work();

export interface AbsentPhonesOptions {
  repo: CallsRepo;
  hub: PhoneHub;
  recorder: CallRecorder;
  locks: DeviceLocks;
  notices: CallNotices;
  log: Logger;
  /** How long a live call waits for its phone to come back before it is ended. */
  phoneGraceMs: number;
  /** Where phones are: a grace period ends nothing while the phone is connected to any node of a cluster. */
  directory: PhoneDirectory;
  /** A phone's absent calls are ended by one node, once (`runHere` on one gateway). */
  exclusive: Exclusive;
}

/**
 * Calls whose phone is away: each such phone gets a grace period, after which its open calls are
 * ended, unless it came back (here, or to another node, which then serves them: `released`).
 */
export class AbsentPhones {
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly o: AbsentPhonesOptions) {}

  /** Gives calls whose phone is away (at start: connected nowhere) their grace period. */
  async start(): Promise<void> {
    const away = new Set((await this.o.repo.openCalls()).map((c) => c.device_id));
    for (const deviceId of away) if (!(await this.connectedAnywhere(deviceId))) this.startGrace(deviceId);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
  }

  private async connectedAnywhere(deviceId: string): Promise<boolean> {
    if (this.o.hub.connected(deviceId)) return true;
    return (await this.o.directory.elsewhere([deviceId])).has(deviceId);
  }

  /** The phone's socket closed: its open calls, if any, wait for it. */
  onDisconnected(deviceId: string): void {
    if (this.stopped) return;
    this.o.repo
      .openCalls(deviceId)
      .then((open) => {
        if (open.length > 0 && !this.stopped && !this.o.hub.connected(deviceId)) this.startGrace(deviceId);
      })
      .catch((err: unknown) => this.o.log.warn({ err, deviceId }, 'could not check the calls of a disconnected phone'));
  }

  private startGrace(deviceId: string): void {
    if (this.graceTimers.has(deviceId)) return;
    const timer = setTimeout(() => {
      this.graceTimers.delete(deviceId);
      if (this.o.hub.connected(deviceId)) return;
      void (async () => {
        // Connected to another node meanwhile: that node serves its calls.
        if (await this.connectedAnywhere(deviceId)) return this.releaseDevice(deviceId);
        const end = () => this.endOpenCalls(deviceId, 'the phone stayed disconnected');
        await this.o.exclusive(end, `absent phone ${deviceId}`);
      })().catch((err: unknown) => this.o.log.error({ err, deviceId }, 'could not end calls of an absent phone'));
    }, this.o.phoneGraceMs);
    timer.unref();
    this.graceTimers.set(deviceId, timer);
  }

  /** The phone is back (its hello), or served elsewhere: its calls wait no longer. */
  cancelGrace(deviceId: string): void {
    const timer = this.graceTimers.get(deviceId);
    if (timer) clearTimeout(timer);
    this.graceTimers.delete(deviceId);
  }

  /**
   * The phone now lives on another node (several gateways): its open calls are served there, so
   * this node lets go of them (`released`) and ends nothing.
   */
  async releaseDevice(deviceId: string): Promise<void> {
    this.cancelGrace(deviceId);
    for (const row of await this.o.repo.openCalls(deviceId)) this.o.notices.released(presentCall(row));
  }

  /** Ends every open call of a phone (gone for good, or away past its grace period). */
  async endOpenCalls(deviceId: string, reason: string): Promise<void> {
    this.cancelGrace(deviceId);
    await this.o.locks.run(deviceId, async () => {
      for (const call of await this.o.repo.openCalls(deviceId)) {
        this.o.log.info({ callId: call.id, deviceId, reason }, 'ending call');
        await this.o.recorder.gatewayEvent(call.id, 'call.disconnected', { cause: 'other', reason, source: 'gateway' });
      }
    });
  }
}
