import type { ApiKeyService, Principal } from '../auth/index.js';
import type { CallService } from '../calls/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { DeviceService, FailureLimiter, PhoneHub } from '../phones/index.js';
import type { SettingsService } from '../settings/index.js';
import type { StreamManager } from '../streams/index.js';
import type { WebhookDispatcher } from '../webhooks/index.js';

/**
 * What the HTTP edge needs from the domain. Passed in explicitly so a test can start a whole
 * gateway in one line; later domains add their services here.
 */
export interface HttpServices {
  config: Config;
  log: Logger;
  settings: SettingsService;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  hub: PhoneHub;
  calls: CallService;
  webhooks: WebhookDispatcher;
  streams: StreamManager;
  pairingLimiter: FailureLimiter;
  /** Whether the phone is sending audio for a call right now (MediaInfo.streaming). */
  isStreaming: (callId: string) => boolean;
  /** Extra credential checks (the console's session cookie) tried when no API key is sent. */
  sessionPrincipal?: (cookieHeader: string | undefined, origin: string | undefined, method: string) => Promise<Principal | null>;
}

export type AppEnv = { Variables: { principal: Principal } };
