import { describe, expect, it } from 'vitest';
import { DiagnosticsReport, isSecretName, withoutSecrets } from './diagnostics.js';

describe('the self-test report (phone protocol extension 1.3)', () => {
  it('names credentials by their field names, not by words that merely contain "key"', () => {
    for (const name of ['deviceToken', 'token', 'secret', 'webhookSecret', 'password', 'passwd', 'apiKey', 'api_key', 'private-key', 'key', 'Authorization', 'cookie', 'credentials', 'sessionId']) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['keyboard', 'attempts', 'capabilities', 'isPstnCallAudioInterceptable', 'exception', 'message', 'uid', 'way']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });

  it('drops them at any depth, in objects and in arrays, and keeps everything else', () => {
    const report = { a: 1, deviceToken: 'dt_x', nested: { list: [{ password: 'p', keep: [1, { apiKey: 'k', ok: true }] }] } };
    expect(withoutSecrets(report)).toEqual({ a: 1, nested: { list: [{ keep: [1, { ok: true }] }] } });
  });

  it('takes a minimal report and bounds the whole at 16 KiB', () => {
    const generatedAt = '2026-11-26T20:00:00Z';
    expect(DiagnosticsReport.safeParse({ generatedAt }).success).toBe(true);
    expect(DiagnosticsReport.safeParse({ generatedAt, extra: 'x'.repeat(16 * 1024 - 60) }).success).toBe(true);
    const large = DiagnosticsReport.safeParse({ generatedAt, extra: 'x'.repeat(16 * 1024) });
    expect(large.success).toBe(false);
    expect(large.error?.issues[0]?.message).toBe('must be at most 16 KiB as JSON');
    expect(DiagnosticsReport.safeParse({}).success).toBe(false);
  });
});
