import type { GatewayApp } from '../app.js';
import type { HttpServices } from '../services.js';
import { registerApiKeyRoutes } from './api-keys.js';
import { registerAppDownloadRoutes } from './app-download.js';
import { registerAssistantRoutes } from './assistant.js';
import { registerAuthRoutes } from './auth.js';
import { registerCallActionRoutes } from './call-actions.js';
import { registerCallRoutes } from './calls.js';
import { registerDeviceRoutes } from './devices.js';
import { registerHealthRoutes } from './health.js';
import { registerLiveRoutes } from './live.js';
import { registerMetricsRoutes } from './metrics.js';
import { registerSettingsRoutes } from './settings.js';
import { registerSocketRoutes } from './sockets.js';
import { registerStreamRoutes } from './streams.js';
import { registerUserRoutes } from './users.js';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries.js';

export function registerRoutes(app: GatewayApp, services: HttpServices): void {
  registerHealthRoutes(app, services);
  registerMetricsRoutes(app, services);
  registerAppDownloadRoutes(app, services);
  registerSettingsRoutes(app, services);
  registerApiKeyRoutes(app, services);
  registerDeviceRoutes(app, services);
  registerCallRoutes(app, services);
  registerStreamRoutes(app, services);
  registerSocketRoutes(app, services);
  registerAssistantRoutes(app, services);
  // Routes of the form /v1/calls/{callId}/<word> go before the generic {action} route.
  registerCallActionRoutes(app, services);
  registerWebhookDeliveryRoutes(app, services);
  registerAuthRoutes(app, services);
  registerUserRoutes(app, services);
  registerLiveRoutes(app);
}
