import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Paths whose values are secrets; pino replaces them, so a careless log call cannot leak one. */
const REDACT = [
  'key',
  'apiKey',
  'token',
  'deviceToken',
  'secret',
  'password',
  'authorization',
  'assistantApiKey',
  'webhookSecret',
  'secretKey',
  'secretKeyPrevious',
  'metricsToken',
  '*.key',
  '*.apiKey',
  '*.token',
  '*.deviceToken',
  '*.secret',
  '*.password',
  '*.authorization',
  '*.assistantApiKey',
  '*.webhookSecret',
  '*.secretKey',
  '*.secretKeyPrevious',
  '*.metricsToken',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'voice-gateway' }, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
