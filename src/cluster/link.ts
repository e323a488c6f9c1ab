import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { secretsEqual } from '../auth/index.js';

/** Marks a request one node passes to another: the receiving node serves it itself, never passes it on. */
export const NODE_HEADER = 'x-voice-gateway-node';
/** Names the node that answered a request another node made (NODE_URL's check at start). */
export const NODE_ID_HEADER = 'x-voice-gateway-node-id';

/** Headers that describe one hop, not the request: never passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'host', NODE_HEADER]);
/** Answers of the node holding the phone are small JSON; a larger one is cut off as an error. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** How long the holding node may take to answer an upgrade before the client is told it timed out. */
const UPGRADE_TIMEOUT_MS = 10_000;

export interface ForwardedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Headers;
  body: Buffer | undefined;
}

export type ForwardOutcome = Response | 'unreachable' | 'timeout';
export type UpgradeOutcome = 'proxied' | 'unreachable' | 'timeout';

/**
 * Node-to-node HTTP: requests and WebSocket upgrades passed to the node that holds a phone's socket,
 * over kept-alive connections, marked with the cluster's token (derived from the secret key every
 * node shares). The receiving node checks the client's own credential again, so the token only says
 * "serve this here", never who the client is.
 */
export class NodeLink {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  /** NODE_URL may be https:// (TLS in front of a node): its own client and agent. */
  private readonly tlsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

  /** `tokens[0]` is sent; any of them is accepted (the one of SECRET_KEY_PREVIOUS during a rotation). */
  constructor(private readonly tokens: string[]) {}

  fromNode(value: string | string[] | null | undefined): boolean {
    if (typeof value !== 'string') return false;
    return this.tokens.some((token) => secretsEqual(value, token));
  }

  /**
   * The holding node's answer; `unreachable` when it could not be asked (the caller serves the request
   * itself: the phone is gone with its node), `timeout` when it did not answer within `timeoutMs`.
   */
  forward(target: string, request: ForwardedRequest, timeoutMs: number): Promise<ForwardOutcome> {
    return this.send(target, request, timeoutMs, true);
  }

  private send(target: string, request: ForwardedRequest, timeoutMs: number, retryReused: boolean): Promise<ForwardOutcome> {
    const url = new URL(request.path, target);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) headers[name] = value;
    });
    headers.host = request.headers.get('host') ?? url.host;
    headers[NODE_HEADER] = this.tokens[0]!;
    if (request.body) headers['content-length'] = String(request.body.length);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: ForwardOutcome | 'retry') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome === 'retry') resolve(this.send(target, request, timeoutMs, false));
        else resolve(outcome);
      };
      const tls = url.protocol === 'https:';
      const req = (tls ? https : http).request(url, { method: request.method, headers, agent: tls ? this.tlsAgent : this.agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) return req.destroy(new Error('answer too large'));
          chunks.push(chunk);
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          // A node answers 2xx to 5xx; anything else at its address (a stale row, another server) is no node's answer.
          if (status < 200 || status > 599) return settle('unreachable');
          settle(new Response(chunks.length > 0 && status !== 204 ? Buffer.concat(chunks) : null, { status, headers: answerHeaders(res.headers) }));
        });
        res.on('error', () => settle('unreachable'));
      });
      const timer = setTimeout(() => {
        settle('timeout');
        req.destroy();
      }, timeoutMs);
      // A kept-alive connection the other node closed as it was reused never carried the request: ask again once.
      req.on('error', (err: NodeJS.ErrnoException) => settle(retryReused && req.reusedSocket && err.code === 'ECONNRESET' ? 'retry' : 'unreachable'));
      req.end(request.body);
    });
  }

  /**
   * Passes a WebSocket upgrade to the holding node and, once it answers, joins the two sockets byte
   * for byte: the client speaks with that node as if directly (its pings, closes and back-pressure
   * included). A refusal (401, 404, 409) is passed back as it came.
   */
  proxyUpgrade(target: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<UpgradeOutcome> {
    const url = new URL(req.url ?? '/', target);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && name !== NODE_HEADER) headers[name] = value;
    headers[NODE_HEADER] = this.tokens[0]!;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: UpgradeOutcome) => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
        return true;
      };
      const upstream = (url.protocol === 'https:' ? https : http).request(url, { method: 'GET', headers, agent: false });
      const timer = setTimeout(() => {
        if (settle('timeout')) upstream.destroy();
      }, UPGRADE_TIMEOUT_MS);
      upstream.on('upgrade', (res, remote: Duplex & { setNoDelay?: (on: boolean) => void }, remoteHead: Buffer) => {
        if (!settle('proxied') || socket.destroyed) {
          remote.destroy();
          return;
        }
        (socket as Duplex & { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
        remote.setNoDelay?.(true);
        socket.write(`HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage ?? 'Switching Protocols'}\r\n${rawHeaderLines(res.rawHeaders)}\r\n`);
        if (remoteHead.length > 0) socket.write(remoteHead);
        if (head.length > 0) remote.write(head);
        const close = () => {
          socket.destroy();
          remote.destroy();
        };
        remote.on('error', close).on('close', close);
        socket.on('error', close).on('close', close);
        remote.pipe(socket);
        socket.pipe(remote);
      });
      upstream.on('response', (res) => {
        if (!settle('proxied')) return void res.destroy();
        socket.write(`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage ?? ''}\r\n${rawHeaderLines(res.rawHeaders)}\r\n`);
        res.pipe(socket);
      });
      upstream.on('error', () => settle('unreachable'));
      upstream.end();
    });
  }

  close(): void {
    this.agent.destroy();
    this.tlsAgent.destroy();
  }
}

function answerHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

function rawHeaderLines(raw: string[]): string {
  let lines = '';
  for (let i = 0; i + 1 < raw.length; i += 2) lines += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return lines;
}
