import type { Call, CallService } from '../calls/index.js';
import type { Logger } from '../log.js';
import type { SettingsService } from '../settings/index.js';
import type { StreamManager } from '../streams/index.js';

/** The assistant's side of rule 2, plugged in when the assistant exists. */
export interface IncomingAssistant {
  /** True when the assistant takes the call (autoAnswer on and a key set). */
  takeIncoming(call: Call): Promise<boolean>;
}

/**
 * The spec's handling of incoming calls, in its order: 1. a configured incoming stream answers
 * after about a second; 2. else the assistant with autoAnswer; 3. else the call rings until a
 * client acts or the caller gives up.
 */
export function routeIncomingCalls(o: {
  calls: CallService;
  streams: StreamManager;
  settings: SettingsService;
  log: Logger;
  autoStreamDelayMs: number;
  assistant?: IncomingAssistant | undefined;
}): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const onIncoming = (call: Call): void => {
    const stream = o.settings.incomingStream();
    if (stream) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void (async () => {
          const now = await o.calls.get(call.id);
          if (now.state !== 'ringing') return;
          o.log.info({ callId: call.id, deviceId: call.deviceId }, 'incoming call: answering with the incoming stream');
          await o.streams.attach(call.id, { url: stream.url, format: stream.format });
        })().catch((err: unknown) => o.log.warn({ err, callId: call.id }, 'incoming auto-stream failed'));
      }, o.autoStreamDelayMs);
      timers.add(timer);
      return;
    }
    const assistant = o.assistant;
    if (assistant) {
      void assistant
        .takeIncoming(call)
        .then((taken) => {
          if (taken) o.log.info({ callId: call.id, deviceId: call.deviceId }, 'incoming call: the assistant answers');
        })
        .catch((err: unknown) => o.log.warn({ err, callId: call.id }, 'assistant could not take the incoming call'));
    }
  };
  o.calls.on('incoming', onIncoming);
  return () => {
    o.calls.off('incoming', onIncoming);
    for (const timer of timers) clearTimeout(timer);
  };
}
