import { z } from '@hono/zod-openapi';
import { STREAM_FORMATS } from '../../codecs/formats.js';
import { DIALABLE_DESCRIPTION, dialableSearch, normalizeDialable } from '../../calls/dialable.js';
import { END_CAUSES } from '../../calls/end-cause.js';
import { CALL_STATES, COMMAND_ACTIONS, DIRECTIONS, EVENT_NAMES } from '../../calls/state.js';
import { GATEWAY_EVENT_NAMES, TRANSCRIPT_ROLES } from '../../calls/model.js';
import { JSON_TOO_LARGE, fitsJson } from '../../json-size.js';
import { LIMITS } from '../../limits.js';
import { text, wellFormed, wellFormedJson } from '../../text.js';
import { SIM_SLOT_MAX } from '../../phones/sims.js';
import { AssistantTaskInput } from './assistant-task.js';
import { DateTime, HttpUrl, Limit, WsUrl } from './common.js';

export const StreamConfig = z
  .object({
    url: WsUrl.openapi({
      description: "the agent's WebSocket; the gateway signs its upgrade with the webhook secret (Standard Webhooks headers over this exact URL)",
      example: 'wss://agent.example.com/voice',
    }),
    format: z.enum(STREAM_FORMATS).optional().openapi({
      description:
        '`raw` (default): binary 16 kHz s16le frames; from the agent, PCM of any length, `{"type": "clear"}`, and (an extension) `{"type": "mark", "name"}`, told back as `{"type": "mark", "name", "data": {"name", "event": "playout"}}` once the audio before it has played (`"event": "cleared"` at clear), plus jambonz\'s audio verbs (`killAudio` is clear, `disconnect` hangs up, `{"type": "mark", "data": {"name"}}`). `vendor`: Twilio Media Streams JSON with 8 kHz mu-law',
    }),
    parameters: z
      .record(text().max(200), text().max(1000))
      .refine((v) => fitsJson(v), JSON_TOO_LARGE)
      .optional()
      .openapi({ description: 'delivered to the agent in the start message; at most 16 KiB as JSON' }),
  })
  .openapi('StreamConfig');

export const Call = z
  .object({
    id: z.string().openapi({ example: 'call_5f0c2a9d41e7b3c8a6d2' }),
    deviceId: z.string().openapi({ example: 'phone-3fa2b1c4d5e6' }),
    deviceName: z.string().optional().openapi({ description: 'extension: the name the phone had, once it has been removed (GET /v1/devices no longer lists it)', example: 'Pixel 8' }),
    remoteNumber: z.string().openapi({ example: '+4915112345678' }),
    direction: z.enum(DIRECTIONS),
    state: z.enum(CALL_STATES),
    nativeCallId: z.string().optional(),
    webhookUrl: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    stream: StreamConfig.optional(),
    createdAt: DateTime.openapi({ description: 'unique per call (microsecond precision); the paging cursor' }),
    updatedAt: DateTime,
    answeredAt: DateTime.optional(),
    endedAt: DateTime.optional(),
    endCause: z
      .enum(END_CAUSES)
      .optional()
      .openapi({
        description:
          'why a final call ended: `local` (hung up on this line: through the API, the console or on the handset), `remote` (the other party hung up), ' +
          '`busy`, `rejected` (declined), `missed` (nobody answered), `failed` (could not be placed or connected), `error`, `other`',
        example: 'remote',
      }),
    endReason: z.string().optional().openapi({ description: 'the reason in words, when the phone or the gateway gave one', example: 'the phone stayed disconnected' }),
  })
  .openapi('Call');

export const Command = z
  .object({
    type: z.literal('command'),
    commandId: z.uuid(),
    callId: z.string(),
    action: z.enum(COMMAND_ACTIONS),
    payload: z.record(z.string(), z.unknown()),
  })
  .openapi('Command');

export const MediaInfo = z
  .object({
    path: z.string().openapi({ example: '/v1/calls/call_5f0c2a9d41e7b3c8a6d2/media' }),
    format: z.object({
      encoding: z.literal('pcm_s16le'),
      sampleRate: z.literal(16000),
      channels: z.literal(1),
      frameMs: z.literal(20),
    }),
    streaming: z.boolean().openapi({ description: 'true while the phone is sending audio' }),
  })
  .openapi('MediaInfo');

export const CallEvent = z
  .object({
    event: z.enum([...EVENT_NAMES, ...GATEWAY_EVENT_NAMES]).openapi({
      description: "the phone's event, or (extension) `gateway.dtmf_sent`: digits sent through the API, recorded by the gateway once the phone acknowledged the command (payload `{digits, source: \"api\", commandId}`); or `gateway.assistant_failed`: the assistant could not join or stay on the call (payload `{reason, kind, source: \"gateway\"}`, the reason in plain words). Neither moves state nor sends a webhook",
    }),
    eventId: z.string(),
    payload: z.record(z.string(), z.unknown()),
    occurredAt: DateTime.openapi({ description: 'phone clock' }),
    receivedAt: DateTime.openapi({ description: 'server clock' }),
  })
  .openapi('CallEvent');

export const TranscriptLine = z
  .object({ role: z.enum(TRANSCRIPT_ROLES), text: z.string(), at: DateTime })
  .openapi('TranscriptLine');

/**
 * A phone number as people type it, at most 64 characters as sent (the spec's bound on `to`),
 * turned into its dialable form by `parse`, or refused with the problem `parse` names.
 */
const numberText = (parse: (text: string) => { ok: true; number: string } | { ok: false; problem: string }) =>
  z
    .string()
    .trim()
    .check(wellFormed())
    .min(1)
    .max(LIMITS.callToMaxLength)
    .transform((text, ctx) => {
      const parsed = parse(text);
      if (parsed.ok) return parsed.number;
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    });

/** `to` of a new call, dialled without its separators. */
const DialableNumber = numberText(normalizeDialable).openapi({
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.callToMaxLength,
  pattern: '^[0-9*#+,;\\s\\-\\u2010-\\u2015\\u2212./()]+$',
  description: DIALABLE_DESCRIPTION,
  example: '+49 151 1234 5678',
});

const SEARCH_PROBLEM = 'can hold only digits, +, *, #, the pauses , and ; and separators such as spaces';

export const PlaceCall = z
  .object({
    deviceId: text().min(1).max(64).openapi({ example: 'phone-3fa2b1c4d5e6' }),
    to: DialableNumber,
    webhookUrl: HttpUrl.optional().openapi({ description: 'receives this call\'s events instead of the default webhook' }),
    metadata: z
      .record(z.string(), z.unknown())
      .check(wellFormedJson())
      .refine((v) => fitsJson(v), JSON_TOO_LARGE)
      .optional()
      .openapi({ description: 'stored with the call and returned on reads and webhooks; at most 16 KiB as JSON' }),
    stream: StreamConfig.optional(),
    sim: z.number().int().min(0).max(SIM_SLOT_MAX).optional().openapi({
      description:
        'extension: the SIM slot (0 for the first) to dial from, as the phone reports them in `health.sims`; the phone\'s default SIM when absent. 409 `SIM_UNAVAILABLE` when that slot has no usable SIM, 409 `SIM_NOT_SUPPORTED` when the phone has not reported its SIMs',
      example: 1,
    }),
    assistant: AssistantTaskInput.optional().openapi({ description: 'the built-in assistant runs the call with this task and reports an outcome' }),
  })
  .openapi('PlaceCall');

export const CallList = z.object({ calls: z.array(Call), nextBefore: DateTime.nullable() }).openapi('CallList');

export const CallListQuery = z.object({
  deviceId: text().max(64).optional(),
  state: z.enum(CALL_STATES).optional(),
  direction: z.enum(DIRECTIONS).optional(),
  before: z.iso.datetime({ offset: true }).optional().openapi({ description: 'calls created before it; pass `nextBefore` of the previous page' }),
  after: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'only calls created after it: with `before`, a date range; paging with `nextBefore` keeps it', example: '2026-11-20T00:00:00Z' }),
  remoteNumber: numberText((text) => {
    const number = dialableSearch(text);
    return number === null ? { ok: false, problem: SEARCH_PROBLEM } : { ok: true, number };
  })
    .optional()
    .openapi({
      type: 'string',
      maxLength: LIMITS.callToMaxLength,
      description: 'only calls whose number contains these digits, separators ignored on both sides: `151 234` finds `+491512345678`',
      example: '151 234',
    }),
  limit: Limit,
});

export const PlacedCall = z.object({ call: Call, command: Command, media: MediaInfo }).openapi('PlacedCall');
export const CallWithMedia = z.object({ call: Call, media: MediaInfo }).openapi('CallWithMedia');
export const ActionResult = z.object({ accepted: z.boolean(), command: Command, call: Call }).openapi('ActionResult');
export const Dtmf = z
  .object({ digits: z.string().max(LIMITS.dtmfMaxLength).regex(LIMITS.dtmfPattern, 'must contain only 0-9, * and #') })
  .openapi('Dtmf');

export const CallIdParam = z.object({ callId: text().min(1).openapi({ param: { name: 'callId', in: 'path' } }) });
