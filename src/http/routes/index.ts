import type { GatewayApp } from '../app.js';
import type { HttpServices } from '../services.js';
import { registerApiKeyRoutes } from './api-keys.js';
import { registerHealthRoutes } from './health.js';
import { registerSettingsRoutes } from './settings.js';

export function registerRoutes(app: GatewayApp, services: HttpServices): void {
  registerHealthRoutes(app);
  registerSettingsRoutes(app, services);
  registerApiKeyRoutes(app, services);
}
