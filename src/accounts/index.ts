export {
  AccountService,
  DEFAULT_LOGIN_LIMITS,
  DEFAULT_SESSION_TTL_MS,
  PASSWORD_RESET_TTL_MS,
  normalizeEmail,
  type AccountActor,
  type AccountServiceOptions,
  type Role,
  type Session,
  type User,
} from './accounts.js';
export { SetupToken, SETUP_TOKEN_FILE, type IssuedSetupToken } from './setup-token.js';
export { hashPassword, verifyPassword, SCRYPT_PARAMS } from './passwords.js';
