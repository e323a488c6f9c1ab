import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { GatewayError, notFound } from '../errors.js';
import type { ApiKeyRow, ApiKeysRepo } from '../store/index.js';

export const API_KEY_PREFIX = 'gw_';
const PREFIX_LENGTH = API_KEY_PREFIX.length + 8;
/** lastUsedAt is written at most this often per key, so a busy client does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export type Principal = { kind: 'environment-key' } | { kind: 'api-key'; keyId: string } | { kind: 'session'; userId: string; email: string };

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Compares two secrets in time that does not depend on where they differ (nor on their lengths). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

const present = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export class ApiKeyService {
  /** createdAt strictly increases within the process, so "newest first" never depends on a tie. */
  private lastCreatedMs = 0;

  constructor(
    private readonly repo: ApiKeysRepo,
    private readonly environmentKey: string | undefined,
  ) {}

  async create(name: string): Promise<ApiKey & { key: string }> {
    const key = API_KEY_PREFIX + randomBytes(24).toString('base64url');
    this.lastCreatedMs = Math.max(Date.now(), this.lastCreatedMs + 1);
    const row: ApiKeyRow = {
      id: randomUUID(),
      name,
      prefix: key.slice(0, PREFIX_LENGTH),
      hash: sha256(key).toString('hex'),
      created_at: new Date(this.lastCreatedMs).toISOString(),
      last_used_at: null,
    };
    await this.repo.insert(row);
    return { ...present(row), key };
  }

  async list(): Promise<ApiKey[]> {
    return (await this.repo.list()).map(present);
  }

  async revoke(id: string): Promise<void> {
    if (!(await this.repo.delete(id))) throw notFound('API key');
  }

  /** The principal a presented key stands for, or null. */
  async verify(presented: string): Promise<Principal | null> {
    if (this.environmentKey !== undefined && secretsEqual(presented, this.environmentKey)) {
      return { kind: 'environment-key' };
    }
    if (!presented.startsWith(API_KEY_PREFIX) || presented.length > 200) return null;
    const digest = sha256(presented);
    for (const row of await this.repo.byPrefix(presented.slice(0, PREFIX_LENGTH))) {
      if (timingSafeEqual(digest, Buffer.from(row.hash, 'hex'))) {
        const now = Date.now();
        if (!row.last_used_at || now - Date.parse(row.last_used_at) > TOUCH_INTERVAL_MS) {
          await this.repo.touch(row.id, new Date(now).toISOString());
        }
        return { kind: 'api-key', keyId: row.id };
      }
    }
    return null;
  }
}

export const unauthorized = (message = 'A valid API key is required (Authorization: Bearer <key> or x-api-key)'): GatewayError =>
  new GatewayError('UNAUTHORIZED', message);
