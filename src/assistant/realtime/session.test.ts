import { describe, expect, it } from 'vitest';
import {
  ASSISTANT_VOICES,
  DEFAULT_ASSISTANT_VOICE,
  END_CALL_TOOL,
  RECORD_MESSAGE_TOOL,
  RESUMED_TRANSCRIPT_CHARS,
  buildInstructions,
  buildSessionUpdate,
} from './session.js';

const input = { ownerName: 'Dana Weber', about: 'Dana is a carpenter. Office hours: Mon-Fri 8-16.' };

describe('buildInstructions', () => {
  it('names the owner, carries the facts and the call flow', () => {
    const text = buildInstructions(input);
    expect(text).toContain('Dana Weber');
    expect(text).toContain('Dana is a carpenter. Office hours: Mon-Fri 8-16.');
    expect(text).toMatch(/who is calling/i);
    expect(text).toMatch(/call back/i);
    expect(text).toMatch(/urgen/i);
    expect(text).toMatch(/never invent/i);
    expect(text).toMatch(/caller's language/i);
    expect(text).toMatch(/short/i);
    expect(text).toContain(RECORD_MESSAGE_TOOL);
    expect(text).toMatch(new RegExp(`goodbye.*${END_CALL_TOOL}`, 's'));
  });

  it('a resumed session is told what was said, to go on from there, and whether the message is taken', () => {
    expect(buildInstructions(input)).not.toMatch(/back on a call/);
    const text = buildInstructions({
      ...input,
      resumed: { earlier: [{ role: 'agent', text: 'Hello, Dana’s phone.' }, { role: 'caller', text: 'Max here.' }], messageTaken: false },
    });
    expect(text).toContain('Do not greet again');
    expect(text).toContain('You: Hello, Dana’s phone.\nCaller: Max here.');
    expect(text).not.toContain('recorded already');
    expect(buildInstructions({ ...input, resumed: { earlier: [], messageTaken: true } })).toMatch(/recorded already[\s\S]*Nothing was said before/);
  });

  it('keeps the end of a long earlier conversation, within its bound', () => {
    const earlier = Array.from({ length: 400 }, (_, i) => ({ role: 'caller' as const, text: `line ${i} of the caller` }));
    const text = buildInstructions({ ...input, resumed: { earlier, messageTaken: false } });
    expect(text).toContain('Caller: line 399 of the caller');
    expect(text).not.toContain('line 0 of');
    const quoted = text.slice(text.lastIndexOf('"""\n…') + 4);
    expect(quoted.length).toBeLessThanOrEqual(RESUMED_TRANSCRIPT_CHARS + 5);
  });

  it('copes with an empty owner and no facts', () => {
    const text = buildInstructions({ ownerName: '  ', about: '' });
    expect(text).toContain('the owner of this number');
    expect(text).toMatch(/no facts/i);
  });
});

describe('buildSessionUpdate', () => {
  it('builds a GA session.update', () => {
    const event = buildSessionUpdate({ ...input, voice: 'cedar' });
    expect(event.type).toBe('session.update');
    const s = event.session;
    expect(s.type).toBe('realtime');
    expect(s).not.toHaveProperty('model');
    expect(s.instructions).toBe(buildInstructions(input));
    expect(s.output_modalities).toEqual(['audio']);
    expect(s.audio?.input?.format).toEqual({ type: 'audio/pcm', rate: 24000 });
    expect(s.audio?.output?.format).toEqual({ type: 'audio/pcm', rate: 24000 });
    expect(s.audio?.input?.turn_detection?.type).toBe('server_vad');
    expect(s.audio?.input?.transcription?.model).toBe('gpt-4o-mini-transcribe');
    expect(s.audio?.output?.voice).toBe('cedar');
    expect(s.tool_choice).toBe('auto');
  });

  it('declares the record and end tools with their schemas', () => {
    const tools = buildSessionUpdate(input).session.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual([RECORD_MESSAGE_TOOL, END_CALL_TOOL]);
    const [record, end] = tools;
    expect(record?.type).toBe('function');
    expect(record?.parameters).toMatchObject({
      type: 'object',
      properties: {
        callerName: { type: 'string' },
        reason: { type: 'string' },
        callbackNumber: { type: 'string' },
        urgency: { type: 'string', enum: ['low', 'normal', 'high'] },
      },
      required: ['callerName', 'reason', 'urgency'],
      additionalProperties: false,
    });
    expect(end?.parameters).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(end?.description).toMatch(/goodbye/i);
  });

  it('falls back to the default voice for unknown voices and includes a model when given', () => {
    const event = buildSessionUpdate({ ...input, voice: 'nova', model: 'gpt-realtime' });
    expect(event.session.audio?.output?.voice).toBe(DEFAULT_ASSISTANT_VOICE);
    expect(event.session.model).toBe('gpt-realtime');
    expect(buildSessionUpdate(input).session.audio?.output?.voice).toBe('marin');
  });

  it('offers the GA voices', () => {
    expect([...ASSISTANT_VOICES].sort()).toEqual(
      ['alloy', 'ash', 'ballad', 'cedar', 'coral', 'echo', 'marin', 'sage', 'shimmer', 'verse'],
    );
  });

  it('serialises to plain JSON', () => {
    const event = buildSessionUpdate(input);
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });
});
