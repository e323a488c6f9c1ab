import type { Db } from './database.js';
import type { PasswordResetsTable, SessionsTable, UsersTable } from './schema.js';

export type UserRow = UsersTable;
export type SessionRow = SessionsTable;
export type PasswordResetRow = PasswordResetsTable;

export class UsersRepo {
  constructor(private readonly db: Db) {}

  async insert(row: UserRow): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  }

  byId(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('sessions').where('user_id', '=', id).execute();
      const r = await tx.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  async touchLogin(id: string, at: string): Promise<void> {
    await this.db.updateTable('users').set({ last_login_at: at }).where('id', '=', id).execute();
  }

  /** A new password hash; every session of the user ends and every reset link of theirs stops working. */
  async setPasswordHash(id: string, hash: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
      await tx.deleteFrom('sessions').where('user_id', '=', id).execute();
      await tx.deleteFrom('password_resets').where('user_id', '=', id).execute();
    });
  }
}

/** One-time links to set a new password; only a hash of each token is kept. */
export class PasswordResetsRepo {
  constructor(private readonly db: Db) {}

  /** The new link replaces the user's earlier ones. */
  async replace(row: PasswordResetRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('password_resets').where('user_id', '=', row.user_id).execute();
      await tx.insertInto('password_resets').values(row).execute();
    });
  }

  /**
   * Uses up a link that exists and has not expired at `now`, in one statement, and returns its user:
   * of requests that redeem one link at the same time, only one gets the user. Expired links are
   * cleaned up on the way.
   */
  async consume(tokenHash: string, now: string): Promise<string | undefined> {
    await this.db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
    const row = await this.db.deleteFrom('password_resets').where('token_hash', '=', tokenHash).where('expires_at', '>', now).returning('user_id').executeTakeFirst();
    return row?.user_id;
  }
}

export class SessionsRepo {
  constructor(private readonly db: Db) {}

  async insert(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  /** The session and its user, if the session has not expired at `now`. */
  async active(tokenHash: string, now: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.token_hash',
        'sessions.user_id',
        'sessions.created_at as session_created_at',
        'sessions.expires_at',
        'users.id',
        'users.email',
        'users.password_hash',
        'users.role',
        'users.created_at',
        'users.last_login_at',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      session: { token_hash: row.token_hash, user_id: row.user_id, created_at: row.session_created_at, expires_at: row.expires_at },
      user: { id: row.id, email: row.email, password_hash: row.password_hash, role: row.role, created_at: row.created_at, last_login_at: row.last_login_at },
    };
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  async deleteExpired(now: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }
}
