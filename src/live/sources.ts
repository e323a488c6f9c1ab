import type { CallChange, CallService } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { DeviceService, PhoneDirectory, PhoneHub } from '../phones/index.js';
import type { WebhookDelivery } from '../webhooks/index.js';
import type { LiveHub } from './hub.js';

/** Publishes call changes and phone changes; returns a function that stops it. */
export function publishDomainEvents(
  live: LiveHub,
  { calls, hub, devices, directory, log }: { calls: CallService; hub: PhoneHub; devices: DeviceService; directory: PhoneDirectory; log: Logger },
): () => void {
  const onChange = ({ call, previousState, event }: CallChange): void => {
    live.publish({ type: 'call', call, previousState, ...(event ? { event } : {}) });
  };
  // One read at a time per phone, so a later report is never overtaken by an earlier one.
  const pending = new Map<string, Promise<void>>();
  const onDevice = (deviceId: string): void => {
    if (live.size === 0) return;
    const previous = pending.get(deviceId) ?? Promise.resolve();
    // On several gateways the others read the phone's presence from the database: tell them after it changed.
    const next = previous.then(() => directory.whenLeft(deviceId)).then(async () => {
      const device = (await devices.exists(deviceId)) ? await devices.get(deviceId) : null;
      live.publish({ type: 'device', deviceId, device });
    });
    const settled = next.catch((err: unknown) => log.warn({ err, deviceId }, 'could not publish a phone change'));
    pending.set(deviceId, settled);
    void settled.then(() => {
      if (pending.get(deviceId) === settled) pending.delete(deviceId);
    });
  };
  calls.on('change', onChange);
  hub.on('device', onDevice);
  return () => {
    calls.off('change', onChange);
    hub.off('device', onDevice);
  };
}

/** The WebhookDispatcher's `onDelivery`: every attempt goes out on the live channel. */
export const deliveryPublisher =
  (live: LiveHub) =>
  (delivery: WebhookDelivery): void =>
    live.publish({ type: 'delivery', delivery });
