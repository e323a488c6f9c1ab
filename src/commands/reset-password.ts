import { AccountService } from '../accounts/index.js';
import { ConfigError, loadConfig } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { createLogger } from '../log.js';
import { openStore, PasswordResetsRepo, SessionsRepo, UsersRepo } from '../store/index.js';

export const RESET_PASSWORD_USAGE = `Usage: voice-gateway reset-password <email> [--password]

Prints a one-time link (valid for an hour) that sets a new password for the console account
of <email>. With --password, sets the password at once instead, read from standard input
(hidden while you type it). Either way the account's sessions end.
Uses the same environment as the gateway (DATA_DIR, DATABASE_URL); the gateway may be running.`;

export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** The new password, read from standard input. */
  readPassword(prompt: string): Promise<string>;
}

/**
 * `voice-gateway reset-password <email> [--password]`: for whoever runs the gateway and has lost a
 * console password (the owner's above all, which nobody else can reset). Works on the gateway's
 * own database beside a running gateway. Returns the exit code.
 */
export async function resetPassword(args: string[], env: NodeJS.ProcessEnv, io: CommandIO): Promise<number> {
  const set = args.includes('--password');
  const rest = args.filter((a) => a !== '--password');
  const [email] = rest;
  if (rest.length !== 1 || !email || email.startsWith('-')) {
    io.err(RESET_PASSWORD_USAGE);
    return rest.includes('--help') || rest.includes('-h') ? 0 : 2;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`voice-gateway: ${err.message}`);
      return 1;
    }
    throw err;
  }
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs, log: createLogger('silent') });
  try {
    const accounts = new AccountService({ users: new UsersRepo(store.db), sessions: new SessionsRepo(store.db), resets: new PasswordResetsRepo(store.db), log: createLogger('silent') });
    if (set) {
      const password = (await io.readPassword(`New password for ${email}: `)).replace(/\r?\n$/, '');
      if (password.length < LIMITS.passwordMinLength || password.length > LIMITS.passwordMaxLength) {
        io.err(`The password must be ${LIMITS.passwordMinLength} to ${LIMITS.passwordMaxLength} characters long; nothing was changed.`);
        return 1;
      }
      const user = await accounts.setPassword(email, password);
      io.out(`The password of ${user.email} is set. Their sessions have ended; they sign in with the new password.`);
      return 0;
    }
    const { user, token, expiresAt } = await accounts.createPasswordReset(email);
    // Only the server's own environment names the address: the publicUrl saved through the API is a
    // value someone signed in may have changed, and the link carries the account's takeover.
    const base = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
    io.out(`Open this link to set a new password for ${user.email} (it works once, until ${expiresAt}):`);
    io.out(`  ${base}/reset-password?token=${token}`);
    if (!config.publicUrl) io.out(`(PUBLIC_URL is not set: from elsewhere, open /reset-password?token=${token} on the address you reach the gateway at.)`);
    return 0;
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'NOT_FOUND') {
      io.err(`No console account has the email ${email}.`);
      return 1;
    }
    throw err;
  } finally {
    await store.close();
  }
}

/** Reads a line from standard input; on a terminal the characters typed are not shown. */
export function readHiddenLine(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const tty = input.isTTY === true;
    if (tty) {
      output.write(prompt);
      input.setRawMode(true);
    }
    input.setEncoding('utf8');
    const done = (value: string | null): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      if (tty) {
        input.setRawMode(false);
        output.write('\n');
      }
      input.pause();
      if (value === null) reject(new Error('cancelled'));
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\u0003') return done(null);
        if (ch === '\r' || ch === '\n') return done(text);
        if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
        else text += ch;
      }
    };
    const onEnd = (): void => done(text);
    input.on('data', onData);
    input.on('end', onEnd);
    input.resume();
  });
}
