export { createHttpApp, type GatewayApp } from './app.js';
export { createNodeServer } from './node-server.js';
export { APP_APK_PATH } from './routes/app-download.js';
export type { HttpServices, AppEnv } from './services.js';
export { OPEN_V1_PATHS } from './auth.js';
export { errorResponse, validationError } from './errors.js';
