import type { ApiKeyService, Principal } from '../auth/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { SettingsService } from '../settings/index.js';

/**
 * What the HTTP edge needs from the domain. Passed in explicitly so a test can start a whole
 * gateway in one line; later domains add their services here.
 */
export interface HttpServices {
  config: Config;
  log: Logger;
  settings: SettingsService;
  apiKeys: ApiKeyService;
  /** Extra credential checks (the console's session cookie) tried when no API key is sent. */
  sessionPrincipal?: (cookieHeader: string | undefined, origin: string | undefined, method: string) => Promise<Principal | null>;
}

export type AppEnv = { Variables: { principal: Principal } };
