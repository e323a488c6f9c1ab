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

export const AssistantMessageResponse = z.object({ message: AssistantMessage }).openapi('AssistantMessageResponse');
