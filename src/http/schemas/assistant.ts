import { z } from '@hono/zod-openapi';
import { ASSISTANT_VOICES, URGENCIES } from '../../assistant/realtime/session.js';
import { text, textWithLines } from '../../text.js';
import { AssistantTask, TaskOutcome } from './assistant-task.js';
import { TranscriptLine } from './calls.js';
import { DateTime, Limit } from './common.js';

const STATUSES = ['off', 'waiting', 'connecting', 'live', 'ended', 'error'] as const;

export const AssistantMessage = z
  .object({
    callId: z.string(),
    remoteNumber: z.string(),
    callerName: z.string(),
    reason: z.string(),
    callbackNumber: z.string().openapi({ description: 'the number the caller gave, else the number they called from' }),
    urgency: z.enum(URGENCIES),
    takenAt: DateTime,
    readAt: DateTime.nullable().openapi({ description: 'when someone marked it read (`PATCH /v1/agent/messages/{callId}`); null while unread' }),
  })
  .openapi('AssistantMessage');

export const AssistantCallInfo = z
  .object({
    requested: z.boolean().openapi({ description: 'whether the call was ever handed to the assistant' }),
    status: z.enum(STATUSES),
    error: z.string().optional().openapi({ description: 'why the assistant failed (status error)' }),
    transcript: z.array(TranscriptLine),
    message: AssistantMessage.optional().openapi({ description: 'present only if the assistant took one' }),
    task: AssistantTask.optional().openapi({ description: 'present if the call was given a task' }),
    outcome: TaskOutcome.optional().openapi({ description: 'how the task went: present once reported, or once the call ended without a report' }),
  })
  .openapi('AssistantCallInfo');

export const AssistantSettings = z
  .object({
    autoAnswer: z.boolean().openapi({ description: 'answer incoming calls with the assistant (unless incomingStreamUrl is set)' }),
    ownerName: text({ name: true }).max(80).openapi({ description: 'who the assistant answers for', example: 'Dana Weber' }),
    about: textWithLines().max(4000).openapi({ description: 'facts the assistant may tell callers' }),
    voice: z.enum(ASSISTANT_VOICES).openapi({ description: 'a voice of the speech model' }),
  })
  .openapi('AssistantSettings');

export const AssistantSettingsUpdate = AssistantSettings.partial().strict().openapi('AssistantSettingsUpdate');

export const AssistantSettingsResponse = z.object({ settings: AssistantSettings }).openapi('AssistantSettingsResponse');

export const AssistantMessageList = z.object({ messages: z.array(AssistantMessage) }).openapi('AssistantMessageList');

export const AssistantMessagesQuery = z.object({ limit: Limit });

export const AssistantMessageUpdate = z
  .strictObject({ read: z.boolean().openapi({ description: 'true marks the message read for everyone, false unread again' }) })
  .openapi('AssistantMessageUpdate');

export const AssistantConnectionTest = z
  .object({
    ok: z.boolean().openapi({ description: 'true when the model accepted the key and confirmed a session' }),
    message: z.string().openapi({
      description: 'what happened, in plain words (the API key is never in it)',
      example: 'The assistant could not reach the voice model at api.openai.com: the connection was refused',
    }),
    kind: z
      .enum(['refused', 'timeout', 'key_refused', 'name_not_found', 'not_allowed', 'model_not_found', 'no_confirmation', 'closed', 'other'])
      .optional()
      .openapi({ description: 'why it failed, for programs; absent on success' }),
    host: z.string().openapi({ description: "the voice model's host", example: 'api.openai.com' }),
    model: z.string().openapi({ example: 'gpt-realtime' }),
    durationMs: z.number().int().min(0),
  })
  .openapi('AssistantConnectionTest');

export const AssistantMessageResponse = z.object({ message: AssistantMessage }).openapi('AssistantMessageResponse');
