import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { secretsEqual } from '../auth/index.js';

export const SETUP_TOKEN_FILE = 'setup-token';

/** A token just issued, where it was saved, or why it could not be. */
export type IssuedSetupToken = { token: string; file: string; saved: true } | { token: string; file: string; saved: false; reason: string };
const PREFIX = 'vgsetup_';

/**
 * Proof that whoever creates the first account controls the server: a one-time token made at each
 * start while no account exists, kept in DATA_DIR/setup-token (0600) and printed once on standard
 * error, never in the log. It is forgotten, and its file removed, as soon as any account exists.
 */
export class SetupToken {
  private token: string | null = null;
  readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, SETUP_TOKEN_FILE);
  }

  /** A new token, replacing any earlier one (so a token seen in an old log stops working), and whether its file was written. */
  issue(): IssuedSetupToken {
    this.token = PREFIX + randomBytes(24).toString('base64url');
    try {
      rmSync(this.file, { force: true });
      writeFileSync(this.file, `${this.token}\n`, { mode: 0o600, flag: 'wx' });
      return { token: this.token, file: this.file, saved: true };
    } catch (err) {
      return { token: this.token, file: this.file, saved: false, reason: (err as Error).message };
    }
  }

  /** Compared in constant time; false once the token is discarded. */
  matches(candidate: string): boolean {
    return this.token !== null && secretsEqual(candidate.trim(), this.token);
  }

  discard(): void {
    this.token = null;
    rmSync(this.file, { force: true });
  }
}
