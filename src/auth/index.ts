export { ApiKeyService, API_KEY_PREFIX, secretsEqual, sha256, unauthorized, type ApiKey, type Principal } from './api-keys.js';
export { credentialFrom } from './credentials.js';
