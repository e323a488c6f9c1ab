import { z } from '@hono/zod-openapi';
import { DiagnosticsReport } from '../../phones/diagnostics.js';
import { DateTime } from './common.js';

/** `GET /v1/devices/{deviceId}/diagnostics` (docs/api.md, "Phones and their audio"). */
export const Diagnostics = z
  .object({
    receivedAt: DateTime.openapi({ description: 'when the gateway received the report' }),
    report: DiagnosticsReport.openapi('DiagnosticsReport'),
  })
  .openapi('Diagnostics');

export const DiagnosticsResponse = z
  .object({ diagnostics: Diagnostics.nullable().openapi({ description: "the phone's latest self-test; null until it sent one" }) })
  .openapi('DiagnosticsResponse');
