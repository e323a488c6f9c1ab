import { z } from '@hono/zod-openapi';
import { Call, StreamConfig } from './calls.js';

const STATUSES = ['off', 'waiting', 'connecting', 'live', 'ended', 'error'] as const;

export const StreamInfo = z
  .object({
    stream: StreamConfig.nullable(),
    status: z.enum(STATUSES),
    error: z.string().optional().openapi({ description: 'error text when the stream failed' }),
    hint: z
      .string()
      .optional()
      .openapi({
        description: 'advice on a stream that runs but looks misconfigured, e.g. a raw stream whose agent speaks Twilio Media Streams',
        example: 'looks like Twilio Media Streams: set stream.format to vendor',
      }),
  })
  .openapi('StreamInfo');

export const StreamAttached = StreamInfo.extend({ call: Call }).openapi('StreamAttached');
