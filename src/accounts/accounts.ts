import { randomBytes, randomUUID } from 'node:crypto';
import { sha256 } from '../auth/index.js';
import { GatewayError, notFound } from '../errors.js';
import type { Logger } from '../log.js';
import { MemoryFailureLimiter, type FailureLimiter, type FailureLimiterFactory } from '../phones/rate-limit.js';
import type { PasswordResetsRepo, SessionsRepo, UserRow, UsersRepo } from '../store/index.js';
import { burnVerification, hashPassword, verifyPassword } from './passwords.js';
import type { IssuedSetupToken, SetupToken } from './setup-token.js';

export type Role = 'owner' | 'member';

export interface User {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastLoginAt: string | null;
}

export interface Session {
  /** The secret for the cookie; only its sha256 is stored. */
  token: string;
  expiresAt: string;
}

/** Who asks to change the accounts: a console user, or an API key (which may do what the owner may). */
export type AccountActor = { kind: 'user'; userId: string } | { kind: 'api-key' };

export interface AccountServiceOptions {
  users: UsersRepo;
  sessions: SessionsRepo;
  /** One-time links to set a new password (`voice-gateway reset-password`). */
  resets: PasswordResetsRepo;
  log: Logger;
  sessionTtlMs?: number;
  /** Failed sign-ins per email and client, and per client, before 429. */
  limits?: { perAccount: number; perClient: number; windowMs: number };
  /** Where failures are counted: in memory by default; in the database when several gateways share it. */
  limiters?: FailureLimiterFactory;
  now?: () => number;
  /** The first run's proof of control of the server; without it, setup needs an API key. */
  setupToken?: SetupToken;
  /** Whether a string is a valid API key (the environment's or a `gw_` key): proof of control too. */
  isApiKey?: (key: string) => Promise<boolean>;
  /** Several gateways: whether another live node printed this setup token (each node prints its own). */
  isOtherSetupToken?: ((token: string) => Promise<boolean>) | undefined;
  /** Several gateways: runs the first run's check and insert while no other node runs its own. */
  exclusively?: (<T>(work: () => Promise<T>, name: string) => Promise<T>) | undefined;
}

export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a password reset link works (once). */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_LOGIN_LIMITS = { perAccount: 5, perClient: 30, windowMs: 15 * 60 * 1000 };

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const present = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  role: row.role === 'owner' ? 'owner' : 'member',
  createdAt: row.created_at,
  lastLoginAt: row.last_login_at,
});

const wrongCredentials = (): GatewayError => new GatewayError('UNAUTHORIZED', 'The email or the password is wrong');

/**
 * Console accounts and sessions. The first account is the owner; only the owner (or an API key)
 * adds and removes the others. Sign-in failures are rate limited per email and client.
 */
export class AccountService {
  private readonly now: () => number;
  readonly sessionTtlMs: number;
  private readonly perAccount: FailureLimiter;
  private readonly perClient: FailureLimiter;
  /** Serializes the "no account yet" check with the insert, so two first-run requests cannot both win. */
  private creating: Promise<unknown> = Promise.resolve();
  private hasAccount = false;

  constructor(private readonly o: AccountServiceOptions) {
    this.now = o.now ?? Date.now;
    this.sessionTtlMs = o.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    const limits = o.limits ?? DEFAULT_LOGIN_LIMITS;
    const limiter = o.limiters ?? ((_scope: string, max: number, windowMs: number, what: string) => new MemoryFailureLimiter(max, windowMs, what, this.now));
    this.perAccount = limiter('sign-in-account', limits.perAccount, limits.windowMs, 'sign-in');
    this.perClient = limiter('sign-in-client', limits.perClient, limits.windowMs, 'sign-in');
  }

  private iso(offsetMs = 0): string {
    return new Date(this.now() + offsetMs).toISOString();
  }

  async setupRequired(): Promise<boolean> {
    if (this.hasAccount) return false;
    this.hasAccount = (await this.o.users.count()) > 0;
    return !this.hasAccount;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const shared = this.o.exclusively;
    const run = shared ? () => shared(work, 'console accounts') : work;
    const next = this.creating.then(run, run);
    this.creating = next.catch(() => undefined);
    return next;
  }

  /**
   * First run: creates the owner while no account exists (else 409 CONFLICT), for a caller who proves
   * control of the server with the setup token or an API key (else 401).
   */
  setup(email: string, password: string, proof: string | null): Promise<User> {
    return this.exclusive(async () => {
      if (!(await this.setupRequired())) throw new GatewayError('CONFLICT', 'The gateway already has an owner; sign in instead');
      if (!(await this.provesControl(proof))) {
        this.o.log.warn('first-run setup refused: no valid setup token or API key');
        throw new GatewayError('UNAUTHORIZED', 'Creating the owner needs the setup token the gateway printed at start on standard error (also in DATA_DIR/setup-token) or the HTTP_GATEWAY_API_KEY', {
          issues: [{ path: 'body.setupToken', message: 'not the setup token of this start, nor an API key', code: 'invalid_setup_token' }],
        });
      }
      return this.insert(email, password, 'owner');
    });
  }

  private async provesControl(proof: string | null): Promise<boolean> {
    if (!proof) return false;
    if (this.o.setupToken?.matches(proof)) return true;
    if (await this.o.isOtherSetupToken?.(proof)) return true;
    return (await this.o.isApiKey?.(proof)) ?? false;
  }

  /**
   * At start: while no account exists, a new setup token for the first run (to print), else none and
   * any token file left from before is removed.
   */
  async prepareFirstRun(): Promise<IssuedSetupToken | null> {
    if (!this.o.setupToken) return null;
    if (await this.setupRequired()) return this.o.setupToken.issue();
    this.o.setupToken.discard();
    return null;
  }

  /** ADMIN_EMAIL and ADMIN_PASSWORD at start: the owner, if no account exists yet. */
  async ensureOwner(email: string, password: string): Promise<User | null> {
    return this.exclusive(async () => {
      if (!(await this.setupRequired())) {
        this.o.log.info('accounts exist; ADMIN_EMAIL and ADMIN_PASSWORD are not applied');
        return null;
      }
      const user = await this.insert(email, password, 'owner');
      this.o.log.info({ userId: user.id }, 'owner account created from ADMIN_EMAIL');
      return user;
    });
  }

  private async insert(email: string, password: string, role: Role): Promise<User> {
    const normalized = normalizeEmail(email);
    if (await this.o.users.byEmail(normalized)) throw new GatewayError('CONFLICT', `An account for ${normalized} already exists`);
    const row: UserRow = {
      id: randomUUID(),
      email: normalized,
      password_hash: await hashPassword(password),
      role,
      created_at: this.iso(),
      last_login_at: null,
    };
    await this.o.users.insert(row);
    this.hasAccount = true;
    this.o.setupToken?.discard();
    return present(row);
  }

  /** Checks the password; `client` identifies the caller (its address) for the rate limit. */
  async login(email: string, password: string, client: string): Promise<{ user: User; session: Session }> {
    const normalized = normalizeEmail(email);
    const accountKey = `${normalized}\n${client}`;
    // Counted before the slow hash, so a burst of parallel guesses cannot all pass the check.
    await this.perClient.check(client);
    const forgiveAccount = await this.perAccount.attempt(accountKey);
    const forgiveClient = await this.perClient.attempt(client);
    const row = await this.o.users.byEmail(normalized);
    const ok = row ? await verifyPassword(password, row.password_hash) : (await burnVerification(password), false);
    if (!row || !ok) {
      this.o.log.info({ client }, 'sign-in refused');
      throw wrongCredentials();
    }
    await forgiveAccount();
    await forgiveClient();
    const at = this.iso();
    await this.o.users.touchLogin(row.id, at);
    await this.o.sessions.deleteExpired(at);
    this.o.log.info({ userId: row.id }, 'signed in');
    return { user: { ...present(row), lastLoginAt: at }, session: await this.createSession(row.id) };
  }

  async createSession(userId: string): Promise<Session> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = this.iso(this.sessionTtlMs);
    await this.o.sessions.insert({ token_hash: sha256(token).toString('hex'), user_id: userId, created_at: this.iso(), expires_at: expiresAt });
    return { token, expiresAt };
  }

  /** The user of a session token that exists and has not expired. */
  async sessionUser(token: string): Promise<User | null> {
    if (token.length < 20 || token.length > 200) return null;
    const found = await this.o.sessions.active(sha256(token).toString('hex'), this.iso());
    return found ? present(found.user) : null;
  }

  async logout(token: string): Promise<void> {
    await this.o.sessions.delete(sha256(token).toString('hex'));
  }

  /**
   * A one-time link's token for the account of `email` (for whoever controls the server: the
   * `reset-password` command), valid PASSWORD_RESET_TTL_MS; it replaces the account's earlier links.
   */
  async createPasswordReset(email: string): Promise<{ user: User; token: string; expiresAt: string }> {
    const row = await this.o.users.byEmail(normalizeEmail(email));
    if (!row) throw notFound('Account');
    const token = `vgreset_${randomBytes(32).toString('base64url')}`;
    const expiresAt = this.iso(PASSWORD_RESET_TTL_MS);
    await this.o.resets.replace({ token_hash: sha256(token).toString('hex'), user_id: row.id, created_at: this.iso(), expires_at: expiresAt });
    this.o.log.info({ userId: row.id }, 'password reset link made');
    return { user: present(row), token, expiresAt };
  }

  /** Redeems a reset link (used up before the slow hash, so it works once): the new password applies, every session and link of the account ends. */
  async redeemPasswordReset(token: string, password: string): Promise<User> {
    const userId = token.length <= 200 ? await this.o.resets.consume(sha256(token.trim()).toString('hex'), this.iso()) : undefined;
    const row = userId ? await this.o.users.byId(userId) : undefined;
    if (!row) {
      throw new GatewayError('UNAUTHORIZED', 'This password reset link has expired or was used already; ask for a new one', {
        issues: [{ path: 'body.token', message: 'has expired or was used already', code: 'invalid_reset_token' }],
      });
    }
    await this.o.users.setPasswordHash(row.id, await hashPassword(password));
    this.o.log.info({ userId: row.id }, 'password set from a reset link');
    return present(row);
  }

  /** Sets the password of the account of `email` directly (the server's operator); its sessions end. */
  async setPassword(email: string, password: string): Promise<User> {
    const row = await this.o.users.byEmail(normalizeEmail(email));
    if (!row) throw notFound('Account');
    await this.o.users.setPasswordHash(row.id, await hashPassword(password));
    this.o.log.info({ userId: row.id }, 'password set by the operator');
    return present(row);
  }

  async get(id: string): Promise<User> {
    const row = await this.o.users.byId(id);
    if (!row) throw notFound('User');
    return present(row);
  }

  async list(): Promise<User[]> {
    return (await this.o.users.list()).map(present);
  }

  /** Lets the owner (or an API key) through; a member gets 403 FORBIDDEN. */
  async requireOwner(actor: AccountActor, what = 'add or remove console users'): Promise<void> {
    if (actor.kind === 'api-key') return;
    const row = await this.o.users.byId(actor.userId);
    if (row?.role !== 'owner') throw new GatewayError('FORBIDDEN', `Only the owner can ${what}`);
  }

  async add(actor: AccountActor, email: string, password: string): Promise<User> {
    await this.requireOwner(actor);
    return this.exclusive(() => this.insert(email, password, 'member'));
  }

  /** Removes a user and ends their sessions; the owner and oneself cannot be removed. */
  async remove(actor: AccountActor, id: string): Promise<void> {
    const row = await this.o.users.byId(id);
    if (!row) throw notFound('User');
    if (actor.kind === 'user' && actor.userId === id) throw new GatewayError('CONFLICT', 'You cannot remove your own account');
    if (row.role === 'owner') throw new GatewayError('CONFLICT', 'The owner cannot be removed');
    await this.requireOwner(actor);
    await this.o.users.delete(id);
    this.o.log.info({ userId: id }, 'console user removed');
  }
}
