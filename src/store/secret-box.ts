import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const KEY_FILE = 'secret.key';

/** Where the key comes from: the environment (`SECRET_KEY`, `SECRET_KEY_FILE`), or DATA_DIR/secret.key. */
export interface SecretKeyOptions {
  dataDir: string;
  key?: { key: Buffer; from: 'SECRET_KEY' } | { key: Buffer; from: 'SECRET_KEY_FILE'; file: string } | undefined;
  /** SECRET_KEY_PREVIOUS: opens what the key of before a rotation sealed, so it can be sealed again. */
  previous?: Buffer | undefined;
}

/** What a value sealed earlier needs at start. */
export type SealCheck = { kind: 'ok' } | { kind: 'reseal'; sealed: string } | { kind: 'unreadable' };

/** The key cannot open the secrets stored in the database: the gateway must not start. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/**
 * Secrets the gateway must use in clear later (the assistant key, the webhook secret) are stored
 * encrypted with AES-256-GCM, so the database (and its backups) never holds them in clear. The key
 * comes from SECRET_KEY or SECRET_KEY_FILE (kept away from the data it protects), else from
 * DATA_DIR/secret.key, which is made on the first seal when missing.
 */
export class SecretBox {
  /** What the operator should fix though the gateway can start (a key left beside the data). */
  readonly warnings: string[] = [];

  private constructor(
    private key: Buffer | null,
    private readonly previous: Buffer | undefined,
    /** How an operator names where the key comes from, in errors. */
    private readonly source: string,
    private readonly file: string | null,
  ) {}

  static open({ dataDir, key, previous }: SecretKeyOptions): SecretBox {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = path.resolve(dataDir, KEY_FILE);
    if (key) {
      const box = new SecretBox(key.key, previous, key.from === 'SECRET_KEY' ? 'SECRET_KEY' : `SECRET_KEY_FILE (${key.file})`, null);
      if (key.from === 'SECRET_KEY_FILE' && !path.relative(path.resolve(dataDir), path.resolve(key.file)).startsWith('..')) {
        box.warnings.push(`SECRET_KEY_FILE (${key.file}) is inside DATA_DIR: keep the key away from the data it protects, and out of its backups`);
      }
      if (existsSync(file)) box.warnings.push(`${file} is not used while the key comes from ${key.from}: delete it, so that no key sits beside the data it protects`);
      return box;
    }
    const source = `DATA_DIR/${KEY_FILE} (${file})`;
    if (!existsSync(file)) return new SecretBox(null, previous, source, file);
    const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (stored.length !== 32) throw new SecretKeyError(`${source} does not hold 32 bytes of base64: restore it from your backup`);
    return new SecretBox(stored, previous, source, file);
  }

  get hasPrevious(): boolean {
    return this.previous !== undefined;
  }

  private currentKey(): Buffer {
    if (this.key) return this.key;
    if (!this.file) throw new SecretKeyError(`no secret key (${this.source})`);
    const key = randomBytes(32);
    writeFileSync(this.file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
    this.key = key;
    return key;
  }

  /**
   * A key for another purpose derived from the secret key (HKDF-SHA256 with `label`), so that one
   * secret serves the cluster too; then one derived from SECRET_KEY_PREVIOUS, while it is set.
   */
  derive(label: string): Buffer[] {
    const derive = (key: Buffer) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), label, 32));
    return [derive(this.currentKey()), ...(this.previous ? [derive(this.previous)] : [])];
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey(), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(sealed: string): string {
    if (!this.key) throw new SecretKeyError(`${this.source} is missing, but secrets sealed with a key are stored`);
    return openWith(this.key, sealed);
  }

  /** At start: whether a stored value opens with the key, or only with the previous one (then it comes back sealed anew). */
  check(sealed: string): SealCheck {
    if (this.key && opens(this.key, sealed)) return { kind: 'ok' };
    if (this.previous && opens(this.previous, sealed)) return { kind: 'reseal', sealed: this.seal(openWith(this.previous, sealed)) };
    return { kind: 'unreadable' };
  }

  /** The start error for stored values no key opens, saying what to do. */
  mismatch(what: string[]): SecretKeyError {
    const stored = `the secrets stored in the database (${what.join(', ')})`;
    if (!this.key) {
      return new SecretKeyError(
        `${this.source} is missing, but ${stored} were sealed with a key: restore the file from your backup, or give that key as SECRET_KEY or SECRET_KEY_FILE`,
      );
    }
    const tried = this.previous ? `neither the key from ${this.source} nor SECRET_KEY_PREVIOUS opens` : `the key from ${this.source} does not open`;
    return new SecretKeyError(
      `${tried} ${stored}: start with the key they were sealed with, or set SECRET_KEY_PREVIOUS to it so that they are sealed again with the new key`,
    );
  }
}

function openWith(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new SecretKeyError('unreadable sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

function opens(key: Buffer, sealed: string): boolean {
  try {
    openWith(key, sealed);
    return true;
  } catch {
    return false;
  }
}
