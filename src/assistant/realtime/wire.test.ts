import { describe, expect, it } from 'vitest';
import { isKnownServerEvent, parseServerEvent } from './wire.js';

describe('parseServerEvent', () => {
  it('parses a known event and keeps its payload', () => {
    const event = parseServerEvent(
      JSON.stringify({ type: 'input_audio_buffer.speech_started', event_id: 'e1', audio_start_ms: 120, item_id: 'item_1' }),
    );
    expect(event).toEqual({ type: 'input_audio_buffer.speech_started', event_id: 'e1', audio_start_ms: 120, item_id: 'item_1' });
    expect(event && isKnownServerEvent(event)).toBe(true);
  });

  it('passes unknown types through', () => {
    const event = parseServerEvent(JSON.stringify({ type: 'rate_limits.updated', rate_limits: [] }));
    expect(event?.type).toBe('rate_limits.updated');
    expect(event && isKnownServerEvent(event)).toBe(false);
  });

  it('returns null for malformed JSON, non-objects and missing types', () => {
    expect(parseServerEvent('{nope')).toBeNull();
    expect(parseServerEvent('[1,2]')).toBeNull();
    expect(parseServerEvent('"error"')).toBeNull();
    expect(parseServerEvent(JSON.stringify({ kind: 'error' }))).toBeNull();
  });

  it('returns null for a known type whose fields have the wrong shape', () => {
    expect(parseServerEvent(JSON.stringify({ type: 'response.output_audio.delta', item_id: 'i', content_index: 0 }))).toBeNull();
    expect(parseServerEvent(JSON.stringify({ type: 'error', error: 'boom' }))).toBeNull();
    expect(parseServerEvent(JSON.stringify({ type: 'response.done', response: { output: 'x' } }))).toBeNull();
  });

  it('accepts an error whose code is null', () => {
    const event = parseServerEvent(
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', code: null, message: 'bad', param: null } }),
    );
    expect(event?.type).toBe('error');
  });
});
