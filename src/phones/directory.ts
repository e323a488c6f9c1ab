/**
 * Where each phone's socket is (docs/cluster.md). On one gateway a phone is connected here or not at
 * all (`THIS_GATEWAY`); a node of a cluster records which node holds each phone, so that every node
 * can find it, and hears when a phone moved away or lost its node (cluster/phones.ts).
 */
export interface PhoneDirectory {
  /** This gateway holds the phone's socket. Awaited before the phone's hello is handled, so once a phone is welcomed every node can find it. */
  hold(deviceId: string, connectionId: string): Promise<void>;
  /** A socket that said hello closed: its record goes (after it was written, if that was still under way). */
  release(deviceId: string, connectionId: string): void;
  /** Resolves once the record of the phone's socket that closed here is gone: what is told about the phone waits for it. */
  whenLeft(deviceId: string): Promise<void>;
  /** The phones (of `deviceIds`, or all) whose socket another gateway holds. */
  elsewhere(deviceIds?: string[]): Promise<Set<string>>;
  /** Whether other gateways read a phone's latency from its row (then each pong's is written). */
  readonly shared: boolean;
}

/** One gateway: a phone is connected here or nowhere, and nothing is recorded. */
export const THIS_GATEWAY: PhoneDirectory = {
  hold: () => Promise.resolve(),
  release: () => undefined,
  whenLeft: () => Promise.resolve(),
  elsewhere: () => Promise.resolve(new Set()),
  shared: false,
};
