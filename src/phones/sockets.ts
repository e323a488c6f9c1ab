import type { PhoneConnection } from './connection.js';
import type { LiveDeviceState } from './devices.js';

/**
 * The one open socket of each connected phone. The hub keeps it; the device service reads from it
 * what the socket knows better than the database (connected, last seen, latency).
 */
export class PhoneSockets implements LiveDeviceState {
  private readonly connections = new Map<string, PhoneConnection>();

  get(deviceId: string): PhoneConnection | undefined {
    return this.connections.get(deviceId);
  }
  set(connection: PhoneConnection): void {
    this.connections.set(connection.deviceId, connection);
  }
  delete(deviceId: string): void {
    this.connections.delete(deviceId);
  }
  values(): IterableIterator<PhoneConnection> {
    return this.connections.values();
  }
  ids(): string[] {
    return [...this.connections.keys()];
  }

  connected(deviceId: string): boolean {
    return this.connections.get(deviceId)?.open ?? false;
  }
  lastSeenAt(deviceId: string): string | undefined {
    return this.connections.get(deviceId)?.lastSeenAt;
  }
  latencyMs(deviceId: string): number | undefined {
    return this.connections.get(deviceId)?.latencyMs;
  }
}
