/**
 * A local stand-in for the OpenAI Realtime API (GA) that speaks its documented WebSocket events.
 * It records every upgrade request and every client event so tests can assert on the wire.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { Recorded } from '../helpers/waits.js';

export type FakeClientEvent = { type: string } & Record<string, unknown>;
export type FakeServerEvent = { type: string } & Record<string, unknown>;

export interface FakeRealtimeRequest {
  /** Path and query as requested, e.g. `/v1/realtime?model=gpt-realtime`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** 101 when upgraded, otherwise the refusal status. */
  status: number;
}

export interface FakeRealtimeConnection {
  readonly index: number;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Client events in arrival order; frames that are not JSON objects with a type are dropped. */
  readonly received: FakeClientEvent[];
  readonly socket: WebSocket;
  /** The session as the fake believes it after the updates (autoRespond only). */
  session: Record<string, unknown>;
  send(event: FakeServerEvent): void;
  close(code?: number, reason?: string): void;
}

export interface FakeRealtimeOptions {
  /** Refuse the upgrade with 401 and an OpenAI-style body unless `Authorization: Bearer <requireKey>`. */
  requireKey?: string;
  /** Reply like the real server: `session.created` on connect, `session.updated` to `session.update`. Default true. */
  autoRespond?: boolean;
  /** Called for each client event after it is recorded. */
  onEvent?: (event: FakeClientEvent, connection: FakeRealtimeConnection) => void;
}

export interface FakeFunctionCall {
  callId: string;
  name: string;
  /** Sent as given when a string, JSON-encoded otherwise. */
  arguments: unknown;
  itemId?: string;
  responseId?: string;
}

export interface FakeRealtime {
  /** `ws://127.0.0.1:<port>/v1/realtime` */
  readonly url: string;
  readonly connections: FakeRealtimeConnection[];
  /** Every client event of every connection, in arrival order. */
  readonly events: Recorded<FakeClientEvent>;
  /** Every upgrade attempt, refused ones included. */
  readonly requests: FakeRealtimeRequest[];
  /** Client events per connection, in order. */
  readonly received: FakeClientEvent[][];
  waitForConnection(timeoutMs?: number): Promise<FakeRealtimeConnection>;
  /**
   * Resolves with the first client event of that type (and matching the predicate) not already
   * returned by an earlier call, looking at past events first, on any connection (in arrival order).
   */
  waitForEvent(type: string, predicate?: (event: FakeClientEvent) => boolean, timeoutMs?: number): Promise<FakeClientEvent>;
  /** Sends to the latest connection. */
  send(event: FakeServerEvent): void;
  /** Sends one `response.output_audio.delta` carrying this PCM to the latest connection. */
  sendAudio(pcm24k: Buffer, itemId: string, options?: { responseId?: string; contentIndex?: number }): void;
  /** Sends `response.function_call_arguments.done`, then `response.done` carrying the same call, as the real server does. */
  sendFunctionCall(call: FakeFunctionCall): void;
  /** From now on pings go unanswered (a hung server, or a connection that died without a FIN). */
  stopAnsweringPings(): void;
  /** Pings received, answered or not. */
  readonly pings: number;
  close(): Promise<void>;
}

const REALTIME_PATH = '/v1/realtime';
const DEFAULT_WAIT_MS = 2_000;

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

function refuse(socket: Duplex, status: number, error: Record<string, unknown>): void {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? merge(current, value) : value;
  }
  return out;
}

function parseFrame(data: RawData): FakeClientEvent | null {
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && typeof value.type === 'string' ? (value as FakeClientEvent) : null;
  } catch {
    return null;
  }
}

export async function startFakeRealtime(options: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
  const autoRespond = options.autoRespond ?? true;
  const connectionLog = new Recorded<FakeRealtimeConnection>('fake realtime', (c) => c.url);
  const connections = connectionLog.items;
  const events = new Recorded<FakeClientEvent>('fake realtime', (e) => e.type);
  const requests: FakeRealtimeRequest[] = [];
  let eventCounter = 0;
  const eventId = (): string => `event_fake_${++eventCounter}`;

  const server = createServer((_req, res) => {
    res.writeHead(426, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Upgrade required', type: 'invalid_request_error', code: null } }));
  });
  // Pongs are sent here, not by ws, so a test can make the server stop answering.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, autoPong: false });
  let answeringPings = true;
  let pings = 0;

  const latest = (): FakeRealtimeConnection => {
    const conn = connections.at(-1);
    if (!conn) throw new Error('fake realtime: no connection yet');
    return conn;
  };

  const accept = (ws: WebSocket, req: IncomingMessage): void => {
    const url = req.url ?? '/';
    const model = new URL(url, 'http://fake').searchParams.get('model') ?? undefined;
    const conn: FakeRealtimeConnection = {
      index: connections.length,
      url,
      headers: req.headers,
      received: [],
      socket: ws,
      session: {
        id: `sess_fake_${connections.length + 1}`,
        object: 'realtime.session',
        type: 'realtime',
        model,
        output_modalities: ['audio'],
        instructions: '',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: null,
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 },
          },
          output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy', speed: 1 },
        },
        tools: [],
        tool_choice: 'auto',
      },
      send(event) {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event_id: eventId(), ...event }));
      },
      close(code = 1000, reason = '') {
        ws.close(code, reason);
      },
    };
    connectionLog.add(conn);

    ws.on('ping', (data) => {
      pings += 1;
      if (answeringPings) ws.pong(data);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const event = parseFrame(data);
      if (!event) return;
      conn.received.push(event);
      if (autoRespond && event.type === 'session.update' && isRecord(event.session)) {
        conn.session = merge(conn.session, event.session);
        conn.send({ type: 'session.updated', session: conn.session });
      }
      options.onEvent?.(event, conn);
      events.add(event);
    });

    if (autoRespond) conn.send({ type: 'session.created', session: conn.session });
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = req.url ?? '/';
    const record: FakeRealtimeRequest = { url, headers: req.headers, status: 101 };
    requests.push(record);
    if (new URL(url, 'http://fake').pathname !== REALTIME_PATH) {
      record.status = 404;
      refuse(socket, 404, { message: `Invalid URL (GET ${url})`, type: 'invalid_request_error', code: null, param: null });
      return;
    }
    if (options.requireKey !== undefined && req.headers.authorization !== `Bearer ${options.requireKey}`) {
      record.status = 401;
      const presented = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      // The real server masks the key it echoes; echoing it whole lets tests prove the client scrubs it.
      refuse(socket, 401, {
        message: `Incorrect API key provided: ${presented}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        param: null,
      });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `ws://127.0.0.1:${port}${REALTIME_PATH}`,
    connections,
    events,
    requests,
    get received() {
      return connections.map((c) => c.received);
    },
    get pings() {
      return pings;
    },
    stopAnsweringPings() {
      answeringPings = false;
    },
    waitForConnection(timeoutMs = DEFAULT_WAIT_MS) {
      const existing = connections.at(-1);
      if (existing) return Promise.resolve(existing);
      return connectionLog.nextNew(undefined, { timeoutMs, what: 'connection' });
    },
    waitForEvent(type, predicate, timeoutMs = DEFAULT_WAIT_MS) {
      // Claimed: two waits for the same type get two events, in arrival order.
      return events.next((event) => event.type === type && (!predicate || predicate(event)), { timeoutMs, what: type, claim: true });
    },
    send(event) {
      latest().send(event);
    },
    sendAudio(pcm24k, itemId, audioOptions = {}) {
      latest().send({
        type: 'response.output_audio.delta',
        response_id: audioOptions.responseId ?? 'resp_fake_1',
        item_id: itemId,
        output_index: 0,
        content_index: audioOptions.contentIndex ?? 0,
        delta: pcm24k.toString('base64'),
      });
    },
    sendFunctionCall(call) {
      const conn = latest();
      const responseId = call.responseId ?? 'resp_fake_fc';
      const itemId = call.itemId ?? `item_${call.callId}`;
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      conn.send({
        type: 'response.function_call_arguments.done',
        response_id: responseId,
        item_id: itemId,
        output_index: 0,
        call_id: call.callId,
        name: call.name,
        arguments: args,
      });
      conn.send({
        type: 'response.done',
        response: {
          object: 'realtime.response',
          id: responseId,
          status: 'completed',
          output: [
            { id: itemId, object: 'realtime.item', type: 'function_call', status: 'completed', call_id: call.callId, name: call.name, arguments: args },
          ],
        },
      });
    },
    async close() {
      for (const conn of connections) conn.socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
