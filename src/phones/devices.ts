import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { sha256 } from '../auth/index.js';
import { GatewayError, notFound } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { DeviceRow, DevicesRepo } from '../store/index.js';
import type { PhoneDirectory } from './directory.js';
import { withoutSecrets, type DiagnosticsReport, type StoredDiagnostics } from './diagnostics.js';
import type { HealthReport } from './protocol.js';
import type { SimInfo } from './sims.js';

export const APP_SCHEME = 'voicegateway';

export interface Device {
  id: string;
  name: string;
  connected: boolean;
  registeredAt: string;
  lastSeenAt: string | null;
  latencyMs: number | null;
  health: HealthReport | null;
}

export interface Pairing {
  code: string;
  expiresAt: string;
  publicUrl: string;
  pairUri: string;
  qrSvg: string;
}

export interface PairRequest {
  code: string;
  name: string;
  model?: string | undefined;
  android?: string | undefined;
  appVersion?: string | undefined;
}

/** Live facts about a phone that the socket knows better than the database. */
export interface LiveDeviceState {
  connected(deviceId: string): boolean;
  lastSeenAt(deviceId: string): string | undefined;
  latencyMs(deviceId: string): number | undefined;
}

// Crockford's base32 without look-alike letters: 10 characters carry 50 bits.
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 10;

function newPairingCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  let code = '';
  for (const b of bytes) code += CODE_ALPHABET[b % 32];
  return code;
}

/** The text does not fit a QR code (about 2,300 bytes at the error correction used). */
export class QrTooLargeError extends Error {
  constructor() {
    super('too long for a QR code');
    this.name = 'QrTooLargeError';
  }
}

/** SVG markup of a QR code of `text`: the pairing link, or the app's download address. */
export async function qrSvg(text: string): Promise<string> {
  try {
    return await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  } catch (err) {
    if (/too big/i.test((err as Error).message)) throw new QrTooLargeError();
    throw err;
  }
}

const normalizeCode = (code: string): string => code.trim().toUpperCase().replace(/[\s-]/g, '');

export class DeviceService {
  /**
   * `live`: what this gateway's sockets know; `directory`: a phone is connected when any node of a
   * cluster holds its socket (its lastSeenAt and latency are then read from its row).
   */
  constructor(
    private readonly repo: DevicesRepo,
    private readonly live: LiveDeviceState,
    private readonly directory: PhoneDirectory,
  ) {}

  /** The phones of `rows` whose socket another node holds. */
  private elsewhere(rows: DeviceRow[], all: boolean): Promise<Set<string>> {
    if (rows.every((row) => this.live.connected(row.id))) return Promise.resolve(new Set());
    return this.directory.elsewhere(all ? undefined : rows.map((row) => row.id));
  }

  present(row: DeviceRow, connectedElsewhere = false): Device {
    const live = this.live;
    return {
      id: row.id,
      name: row.name,
      connected: live.connected(row.id) || connectedElsewhere,
      registeredAt: row.registered_at,
      lastSeenAt: live.lastSeenAt(row.id) ?? row.last_seen_at,
      latencyMs: live.latencyMs(row.id) ?? row.latency_ms,
      health: row.health ? (JSON.parse(row.health) as HealthReport) : null,
    };
  }

  async list(): Promise<Device[]> {
    const rows = await this.repo.list();
    const elsewhere = await this.elsewhere(rows, true);
    return rows.map((row) => this.present(row, elsewhere.has(row.id)));
  }

  async get(id: string): Promise<Device> {
    const row = await this.repo.get(id);
    if (!row) throw notFound('Phone');
    return this.present(row, (await this.elsewhere([row], false)).has(id));
  }

  exists(id: string): Promise<boolean> {
    return this.repo.get(id).then(Boolean);
  }

  async rename(id: string, name: string): Promise<Device> {
    if (!(await this.repo.get(id))) throw notFound('Phone');
    await this.repo.update(id, { name });
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    if (!(await this.repo.delete(id))) throw notFound('Phone');
  }

  /** The phone a device token belongs to, or undefined. */
  async authenticate(token: string): Promise<DeviceRow | undefined> {
    if (!token.startsWith('dt_') || token.length > 200) return undefined;
    return this.repo.byTokenHash(sha256(token).toString('hex'));
  }

  async createPairing(publicUrl: string): Promise<Pairing> {
    const now = Date.now();
    await this.repo.deleteExpiredPairingCodes(new Date(now).toISOString());
    const code = newPairingCode();
    const expiresAt = new Date(now + LIMITS.pairingCodeTtlMs).toISOString();
    const pairUri = `${APP_SCHEME}://pair?url=${encodeURIComponent(publicUrl)}&code=${code}`;
    // The QR code first: an address too long for it leaves no code behind.
    const svg = await qrSvg(pairUri);
    await this.repo.insertPairingCode({ code_hash: sha256(code).toString('hex'), public_url: publicUrl, expires_at: expiresAt, used_at: null });
    return { code, expiresAt, publicUrl, pairUri, qrSvg: svg };
  }

  /**
   * Whether someone with a credential made a pairing code for this address (without trailing
   * slashes) in the last ten minutes: the address the console shows beside it is the gateway's own.
   */
  async isPairingAddress(publicUrl: string): Promise<boolean> {
    return this.repo.pairingAddressLive(publicUrl, new Date().toISOString());
  }

  /** Redeems a one-time code for a new phone and its token (shown this once; only its hash is kept). */
  async pair(request: PairRequest): Promise<{ deviceId: string; deviceToken: string }> {
    const now = new Date().toISOString();
    const deviceId = `phone-${randomBytes(6).toString('hex')}`;
    const deviceToken = `dt_${randomBytes(32).toString('base64url')}`;
    const health: HealthReport = {
      ...(request.model ? { model: request.model } : {}),
      ...(request.android ? { android: request.android } : {}),
      ...(request.appVersion ? { appVersion: request.appVersion } : {}),
    };
    const paired = await this.repo.pairWithCode(sha256(normalizeCode(request.code)).toString('hex'), now, {
      id: deviceId,
      name: request.name,
      token_hash: sha256(deviceToken).toString('hex'),
      registered_at: now,
      last_seen_at: null,
      latency_ms: null,
      health: Object.keys(health).length ? JSON.stringify(health) : null,
    });
    if (!paired) throw new GatewayError('UNAUTHORIZED', 'The pairing code is unknown, already used or expired');
    return { deviceId, deviceToken };
  }

  /** Each report replaces the last; the app version from the hello stays when a report lacks one. */
  async recordHealth(id: string, health: HealthReport): Promise<void> {
    const previous = (await this.repo.get(id))?.health;
    const appVersion = previous ? (JSON.parse(previous) as HealthReport).appVersion : undefined;
    await this.repo.update(id, { health: JSON.stringify({ ...(appVersion ? { appVersion } : {}), ...health }) });
  }

  /** The SIMs of the phone's latest health report; undefined when it never reported them (extension 1.4). */
  async sims(id: string): Promise<SimInfo[] | undefined> {
    const health = (await this.repo.get(id))?.health;
    return health ? (JSON.parse(health) as HealthReport).sims : undefined;
  }

  /** Merges fields into the stored health report (the hello's appVersion before any report). */
  async recordHealthField(id: string, fields: Partial<HealthReport>): Promise<void> {
    const row = await this.repo.get(id);
    if (!row) return;
    const health = { ...(row.health ? (JSON.parse(row.health) as HealthReport) : {}), ...fields };
    await this.repo.update(id, { health: JSON.stringify(health) });
  }

  /** Keeps the phone's latest self-test report, without any field named like a credential. */
  async recordDiagnostics(id: string, report: DiagnosticsReport): Promise<void> {
    await this.repo.putDiagnostics({ device_id: id, received_at: new Date().toISOString(), report: JSON.stringify(withoutSecrets(report)) });
  }

  /** The phone's latest self-test report; null before any; NOT_FOUND for an unknown phone. */
  async diagnostics(id: string): Promise<StoredDiagnostics | null> {
    if (!(await this.repo.get(id))) throw notFound('Phone');
    const row = await this.repo.getDiagnostics(id);
    if (!row) return null;
    // Filtered again on the way out: a report stored by an older gateway is served by the same rule.
    return { receivedAt: row.received_at, report: withoutSecrets(JSON.parse(row.report)) as DiagnosticsReport };
  }

  async recordSeen(id: string, lastSeenAt: string, latencyMs: number | undefined): Promise<void> {
    await this.repo.update(id, { last_seen_at: lastSeenAt, ...(latencyMs !== undefined ? { latency_ms: latencyMs } : {}) });
  }
}
