import { z } from 'zod';
import { fitsJson } from '../json-size.js';
import { text, textWithLines } from '../text.js';

/**
 * Extension 1.3 (docs/phone-protocol.md): the phone's self-test, as it sends it and as
 * `GET /v1/devices/{deviceId}/diagnostics` serves it back. The known fields are checked; a newer
 * app's extra fields are kept (the report is for people reading a bug report), bounded by the
 * report's size as a whole.
 */
export const DIAGNOSTICS_MAX_BYTES = 16 * 1024;
export const DIAGNOSTICS_TOO_LARGE = `must be at most ${DIAGNOSTICS_MAX_BYTES / 1024} KiB as JSON`;

const Check = z
  .looseObject({
    name: text().min(1).max(200).describe('what was checked: dialer_role, permission:android.permission.CALL_PHONE, battery_exemption, foreground_service, gateway_socket, helper'),
    ok: z.boolean().nullable().describe('null: the phone could not tell'),
    detail: textWithLines().max(2000).optional().describe('what was seen, for a person'),
  })
  .describe('one check of the self-test');

const Attempt = z
  .looseObject({
    way: text().max(200).describe('the capture or injection way tried'),
    result: text().max(200).describe('opened or failed'),
    exception: text().max(200).optional().describe('the exception class, when it failed'),
    message: textWithLines().max(2000).optional(),
  })
  .describe('one capture or injection way the audio helper tried');

export const DiagnosticsReport = z
  .looseObject({
    generatedAt: z.iso.datetime({ offset: true }).describe('when the phone ran the self-test'),
    trigger: text().max(40).optional().describe('manual, helper_started, helper_report, …'),
    app: z.looseObject({ version: text().max(50).optional() }).optional(),
    device: z
      .looseObject({
        manufacturer: text().max(100).optional(),
        brand: text().max(100).optional(),
        model: text().max(100).optional(),
        sdk: z.number().int().min(0).max(1000).optional().describe('Build.VERSION.SDK_INT'),
        release: text().max(50).optional().describe('Build.VERSION.RELEASE'),
      })
      .optional(),
    checks: z.array(Check).max(200).optional(),
    gateway: z.looseObject({ link: text().max(40).optional(), lastError: textWithLines().max(2000).nullable().optional() }).optional(),
    helper: z
      .looseObject({
        state: text().max(40).optional().describe('running, stopped, pairing_required'),
        uid: z.number().int().min(-1).nullable().optional().describe('the uid the helper connection reported; null or -1: unknown'),
        capabilities: z
          .looseObject({ capture: z.boolean(), inject: z.boolean(), method: text().max(32), sampleRate: z.number().int().optional() })
          .nullable()
          .optional()
          .describe("what the helper said it can do (as health.audioCapabilities)"),
        note: textWithLines().max(2000).optional(),
        problem: textWithLines().max(2000).nullable().optional(),
        capturing: z.boolean().optional(),
        injecting: z.boolean().optional(),
        diagnostics: z
          .looseObject({ attempts: z.array(Attempt).max(100).optional() })
          .nullable()
          .optional()
          .describe("the helper's own report (its last DIAGNOSTICS message): each way tried, platform facts it read"),
      })
      .optional(),
  })
  .refine((v) => fitsJson(v, DIAGNOSTICS_MAX_BYTES), DIAGNOSTICS_TOO_LARGE)
  .describe("the phone's self-test report (phone protocol extension 1.3)");
export type DiagnosticsReport = z.infer<typeof DiagnosticsReport>;

/**
 * A field named like a credential: the report is shown in the console and pasted into bug reports,
 * so such a field is never stored, whatever a phone (or a later app version) puts in it.
 */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  if (/token|secret|passw|credential|cookie|authori[sz]|bearer|session/.test(lower)) return true;
  // "key", "apiKey", "api_key", "private-key", but not "keyboard" or "monkey".
  return /(^|[^a-z])key([^a-z]|$)/.test(lower) || /key$/.test(lower) || /[a-z0-9]Key/.test(name);
}

/** A copy of `value` without any field named like a credential, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!isSecretName(k)) out[k] = withoutSecrets(v);
    return out;
  }
  return value;
}

/** What the gateway keeps of a phone's last self-test. */
export interface StoredDiagnostics {
  receivedAt: string;
  report: DiagnosticsReport;
}
