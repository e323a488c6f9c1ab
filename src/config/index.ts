import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { STREAM_FORMATS, type StreamFormat } from '../codecs/formats.js';
import { DEFAULT_WEBHOOK_RETRY_DELAYS_MS, LIMITS } from '../limits.js';
import { CREDENTIALS_REFUSED, FRAGMENT_REFUSED, parseCidrList, withoutCredentials, withoutFragment, type CidrRange } from '../outbound/index.js';
import { installPlainMessages } from '../validation-messages.js';

installPlainMessages();

/** Parses durations such as `5s,30s,2m` or `50ms`; a bare number is milliseconds. */
export function parseDurationList(text: string): number[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(part);
    if (!m) throw new Error(`"${part.trim()}" is not a duration such as 500ms, 5s or 2m`);
    const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 'ms'] ?? 1;
    return Math.round(Number(m[1]) * factor);
  });
}

const optionalText = z.string().min(1).optional();
const KEY_FORMAT = 'must be 32 random bytes in base64, such as the output of `openssl rand -base64 32`';

/** The 32-byte key of a base64 text (standard or URL alphabet, padding optional), or null. */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

const secretKey = z.string().transform((text, ctx) => {
  const key = parseSecretKey(text);
  if (key) return key;
  ctx.addIssue({ code: 'custom', message: KEY_FORMAT });
  return z.NEVER;
});
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).refine(withoutCredentials, CREDENTIALS_REFUSED);
const wsUrl = z
  .url({ protocol: /^wss?$/, error: 'must be a ws:// or wss:// URL' })
  .refine(withoutCredentials, CREDENTIALS_REFUSED)
  .refine(withoutFragment, FRAGMENT_REFUSED);
const cidrList = z.string().transform((text, ctx) => {
  try {
    return parseCidrList(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

const envSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d+$/, 'must be a port number (0-65535)')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535, 'must be a port number (0-65535)'))
    .default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (leave it unset for the embedded database)')
    .optional(),
  NODE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine(withoutCredentials, CREDENTIALS_REFUSED)
    .refine((url) => !URL.canParse(url) || /^[a-z]+:\/\/[^/?#]+\/?$/i.test(url), 'must be only scheme, host and port, such as http://10.0.0.5:8080')
    .optional(),
  DATABASE_TIMEOUT: z
    .string()
    .transform((text, ctx) => {
      try {
        const [ms, ...more] = parseDurationList(text);
        if (ms !== undefined && ms >= 100 && more.length === 0) return ms;
      } catch {
        // worded below
      }
      ctx.addIssue({ code: 'custom', message: 'must be one duration of at least 100ms, such as 5s' });
      return z.NEVER;
    })
    .optional(),
  HTTP_GATEWAY_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9._~+/=-]{16,}$/, 'must be at least 16 characters, each a letter, a digit or one of - . _ ~ + / = (it is sent as a Bearer token)')
    .optional(),
  PUBLIC_URL: httpUrl
    .refine((url) => encodeURIComponent(url).length <= LIMITS.publicUrlEncodedMaxLength, `must be at most ${LIMITS.publicUrlEncodedMaxLength} characters once URL-encoded (it goes into QR codes)`)
    .optional(),
  WEBHOOK_URL: httpUrl.optional(),
  DOCS_URL: httpUrl.optional(),
  INCOMING_STREAM_URL: wsUrl.optional(),
  INCOMING_STREAM_FORMAT: z.enum(STREAM_FORMATS).optional(),
  ASSISTANT_API_KEY: optionalText,
  ASSISTANT_MODEL: optionalText,
  ASSISTANT_REALTIME_URL: wsUrl.default('wss://api.openai.com/v1/realtime'),
  WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by at least 24 bytes of base64')
    .optional(),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .transform((text, ctx) => {
      try {
        const delays = parseDurationList(text);
        if (delays.length !== LIMITS.webhookAttempts - 1) {
          ctx.addIssue({ code: 'custom', message: `must list ${LIMITS.webhookAttempts - 1} delays, such as 5s,30s,2m` });
          return z.NEVER;
        }
        return delays;
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
  SECRET_KEY: secretKey.optional(),
  SECRET_KEY_FILE: z.string().min(1).optional(),
  SECRET_KEY_PREVIOUS: secretKey.optional(),
  OUTBOUND_DENY: cidrList.optional(),
  OUTBOUND_ALLOW: cidrList.optional(),
  TRUST_PROXY: cidrList.optional(),
  ADMIN_EMAIL: z.email('must be an email address').optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** With PostgreSQL: the address the other gateways of the cluster reach this one at (docs/cluster.md). */
  nodeUrl: string | undefined;
  /** PostgreSQL: how long a connection or a statement may take before the request answers 503. */
  databaseTimeoutMs: number | undefined;
  gatewayApiKey: string | undefined;
  /** A Bearer token that opens GET /metrics only (for a scraper), beside the API keys. */
  metricsToken: string | undefined;
  publicUrl: string | undefined;
  webhookUrl: string | undefined;
  docsUrl: string | undefined;
  incomingStreamUrl: string | undefined;
  incomingStreamFormat: StreamFormat | undefined;
  assistantApiKey: string | undefined;
  assistantModel: string | undefined;
  assistantRealtimeUrl: string;
  webhookSecret: string | undefined;
  webhookRetryDelaysMs: number[];
  /** The key that seals stored secrets, when it does not live in DATA_DIR/secret.key. */
  secretKey: { key: Buffer; from: 'SECRET_KEY' } | { key: Buffer; from: 'SECRET_KEY_FILE'; file: string } | undefined;
  /** The key secrets were sealed with before a rotation; they are sealed again with the new one at start. */
  secretKeyPrevious: Buffer | undefined;
  /** Added to the default deny ranges (link-local and cloud metadata addresses). */
  outboundDeny: CidrRange[];
  /** Wins over every deny range. */
  outboundAllow: CidrRange[];
  /** Proxies (balancers) whose X-Forwarded-For names the client, for the per-client rate limits. */
  trustProxy: CidrRange[];
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid environment variable ${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** Reads the contract's environment variables; an empty variable counts as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    const value = input[variable];
    // Never echo a secret, nor a URL that may carry a password.
    const hidden = /KEY|SECRET|PASSWORD|TOKEN/.test(variable) || (/_URL$/.test(variable) && value?.includes('@'));
    const shown = value !== undefined && !hidden ? ` (got "${value}")` : '';
    throw new ConfigError(variable, `${issue?.message ?? 'invalid'}${shown}`);
  }
  const e = parsed.data;
  // Alone it would make a new DATA_DIR/secret.key and seal everything again with it: a rotation
  // nobody asked for, to a key kept beside the data.
  if (e.SECRET_KEY_PREVIOUS && !e.SECRET_KEY && !e.SECRET_KEY_FILE) {
    throw new ConfigError('SECRET_KEY_PREVIOUS', 'is the key before a rotation: give the new key in SECRET_KEY or SECRET_KEY_FILE too (see docs/operations.md)');
  }
  if ((e.ADMIN_EMAIL === undefined) !== (e.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError(e.ADMIN_EMAIL ? 'ADMIN_PASSWORD' : 'ADMIN_EMAIL', 'ADMIN_EMAIL and ADMIN_PASSWORD go together');
  }
  if (e.NODE_URL && !e.DATABASE_URL) throw new ConfigError('NODE_URL', 'names this gateway in a cluster, which needs DATABASE_URL (PostgreSQL)');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    nodeUrl: e.NODE_URL?.replace(/\/$/, ''),
    databaseTimeoutMs: e.DATABASE_TIMEOUT,
    gatewayApiKey: e.HTTP_GATEWAY_API_KEY,
    metricsToken: e.METRICS_TOKEN,
    publicUrl: e.PUBLIC_URL,
    webhookUrl: e.WEBHOOK_URL,
    docsUrl: e.DOCS_URL,
    incomingStreamUrl: e.INCOMING_STREAM_URL,
    incomingStreamFormat: e.INCOMING_STREAM_FORMAT,
    assistantApiKey: e.ASSISTANT_API_KEY,
    assistantModel: e.ASSISTANT_MODEL,
    assistantRealtimeUrl: e.ASSISTANT_REALTIME_URL,
    webhookSecret: e.WEBHOOK_SECRET,
    webhookRetryDelaysMs: e.WEBHOOK_RETRY_DELAYS ?? [...DEFAULT_WEBHOOK_RETRY_DELAYS_MS],
    secretKey: readSecretKey(e.SECRET_KEY, e.SECRET_KEY_FILE),
    secretKeyPrevious: e.SECRET_KEY_PREVIOUS,
    outboundDeny: e.OUTBOUND_DENY ?? [],
    outboundAllow: e.OUTBOUND_ALLOW ?? [],
    trustProxy: e.TRUST_PROXY ?? [],
    adminEmail: e.ADMIN_EMAIL,
    adminPassword: e.ADMIN_PASSWORD,
    logLevel: e.LOG_LEVEL,
  };
}

function readSecretKey(fromEnv: Buffer | undefined, file: string | undefined): Config['secretKey'] {
  if (fromEnv && file) throw new ConfigError('SECRET_KEY_FILE', 'set SECRET_KEY or SECRET_KEY_FILE, not both');
  if (fromEnv) return { key: fromEnv, from: 'SECRET_KEY' };
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError('SECRET_KEY_FILE', `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const key = parseSecretKey(text);
  if (!key) throw new ConfigError('SECRET_KEY_FILE', `${file} ${KEY_FORMAT}`);
  return { key, from: 'SECRET_KEY_FILE', file };
}
