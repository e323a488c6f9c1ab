/** Limits of the spec and the contract, shared by schemas, domain, console and docs. */
export const LIMITS = {
  callToMaxLength: 64,
  dtmfMaxLength: 64,
  dtmfPattern: /^[0-9*#]+$/,
  pageLimitMin: 1,
  pageLimitMax: 200,
  pageLimitDefault: 50,
  apiKeyNameMaxLength: 80,
  ownerNameMaxLength: 80,
  aboutMaxLength: 4000,
  emailMaxLength: 254,
  passwordMinLength: 8,
  passwordMaxLength: 200,
  pairingCodeTtlMs: 10 * 60 * 1000,
  webhookAttempts: 4,
  webhookTimeoutMs: 10_000,
  /** Webhook attempts in flight at once to one receiver (URL origin), and to all of them. */
  webhookAttemptsPerReceiver: 32,
  webhookAttemptsInFlight: 512,
  phonePingIntervalMs: 20_000,
  /** Agent and media sockets; with the pong timeout a dead one is found within 20 s. */
  audioPingIntervalMs: 10_000,
  /** A ping of a phone, agent or media socket unanswered this long drops the socket. */
  pongTimeoutMs: 10_000,
  phoneHealthIntervalMs: 60_000,
  commandAckTimeoutMs: 5_000,
  incomingAutoStreamDelayMs: 1_000,
  bodyLimitBytes: 1024 * 1024,
  /** A body the route did not read is read to its end (keeping the connection) within this time, else the connection is closed. */
  unreadBodyDrainMs: 10_000,
  /**
   * A public address goes URL-encoded into the pairing link's QR code (and as it is into the app's
   * download QR code): bounded so both always fit a QR code.
   */
  publicUrlEncodedMaxLength: 2000,
  /** Row ids and paging cursors are 32-bit integer columns. */
  rowIdMax: 2_147_483_647,
  /** Call metadata, stream parameters and a phone event's payload, as JSON. */
  jsonObjectMaxBytes: 16 * 1024,
  shutdownGraceMs: 5_000,
} as const;

export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [5_000, 30_000, 120_000] as const;
