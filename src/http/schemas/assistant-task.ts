import { z } from '@hono/zod-openapi';
import { ASSISTANT_VOICES } from '../../assistant/realtime/session.js';
import { textWithLines } from '../../text.js';
import { DateTime } from './common.js';

/** Bounded like the assistant's `about`: both go into the model's instructions. */
const INSTRUCTIONS_MAX = 4000;

/** What the assistant is to achieve on a call (issue 27): given with POST /v1/calls or POST /v1/calls/{id}/agent. */
export const AssistantTaskInput = z
  .strictObject({
    instructions: textWithLines()
      .trim()
      .min(1)
      .max(INSTRUCTIONS_MAX)
      .openapi({ description: 'what the assistant is to achieve on the call, in plain words', example: 'Book a table for two tonight at 19:30 in the name of Dana Weber.' }),
    voice: z.enum(ASSISTANT_VOICES).optional().openapi({ description: 'a voice of the speech model; the assistant settings\' voice if absent' }),
    hangUpWhenDone: z.boolean().default(true).openapi({ description: 'hang up once the outcome is reported (default); false stays on the line' }),
  })
  .openapi('AssistantTaskInput');

export const AssistantTask = z
  .object({
    instructions: z.string(),
    voice: z.string().optional(),
    hangUpWhenDone: z.boolean(),
  })
  .openapi('AssistantTask');

export const TaskOutcome = z
  .object({
    reported: z.boolean().openapi({ description: 'false: the call ended and the assistant never reported (a clear "no outcome")' }),
    achieved: z.boolean(),
    summary: z.string(),
    facts: z.array(z.string()).openapi({ description: 'key facts the assistant learned, as short strings' }),
    reportedAt: DateTime.nullable(),
  })
  .openapi('TaskOutcome');

/** The optional body of POST /v1/calls/{id}/agent. */
export const TakeCall = z.strictObject({ assistant: AssistantTaskInput.optional() }).openapi('TakeCall');
