import type { AccountService } from '../accounts/index.js';
import type { AssistantService } from '../assistant/index.js';
import type { ApiKeyService, Principal } from '../auth/index.js';
import type { CallService } from '../calls/index.js';
import type { PhoneRouting } from '../cluster/index.js';
import type { Config } from '../config/index.js';
import type { LiveHub } from '../live/index.js';
import type { GatewayMetrics } from '../metrics/index.js';
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
  /** The built-in voice assistant (spec "Assistant"). */
  assistant: AssistantService;
  pairingLimiter: FailureLimiter;
  /** Whether the phone is sending audio for a call right now (MediaInfo.streaming). */
  isStreaming: (callId: string) => boolean;
  /** Console accounts and sessions. */
  accounts: AccountService;
  /** The console's live channel: publish a LiveMessage to every open console. */
  live: LiveHub;
  /** GET /metrics: this gateway's metrics in the Prometheus text format. */
  metrics: GatewayMetrics;
  /** Several gateways on PostgreSQL: which node serves what concerns a phone (absent on one gateway). */
  routing?: PhoneRouting | undefined;
  /** The Android app's APK, served at /app/voice-gateway.apk once `npm run build:android` made it. */
  appApkPath: string;
  /** Resolves once the database answers (GET /health/ready); throws SERVICE_UNAVAILABLE when it does not in time. */
  ready: () => Promise<void>;
  /**
   * Extra credential checks (the console's session cookie) tried when no API key is sent. Methods
   * other than GET, HEAD and OPTIONS (pass 'UPGRADE' for a WebSocket) also need `origin` to be the
   * gateway's own, judged against `host` (the Host header).
   */
  sessionPrincipal?: (cookieHeader: string | undefined, origin: string | undefined, method: string, host?: string) => Promise<Principal | null>;
}

export type AppEnv = { Variables: { principal: Principal } };
