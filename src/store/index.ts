export { openStore, SQLITE_FILE, type Db, type Store } from './database.js';
export { SecretBox } from './secret-box.js';
export type * from './schema.js';
export { SettingsRepo } from './settings-repo.js';
export { ApiKeysRepo, type ApiKeyRow } from './api-keys-repo.js';
export { DevicesRepo, type DeviceRow } from './devices-repo.js';
export { CallsRepo, FINAL_STATES, type CallRow, type CallEventRow, type CallQuery, type Executor, type TranscriptLineRow } from './calls-repo.js';
export const nowIso = (): string => new Date().toISOString();
