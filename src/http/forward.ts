import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { NODE_HEADER, NODE_ID_HEADER, type PhoneRouting } from '../cluster/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../log.js';
import { CONTROL_CHARACTERS } from '../text.js';
import type { NodeAffinity } from './affinity.js';
import type { AppEnv, HttpServices } from './services.js';
import type { UpgradeHandler } from './upgrade.js';

/**
 * An id worth looking up: one the routes' text rule (src/text.ts) refuses is left to them, which answer
 * 400 as one gateway does (PostgreSQL refuses a NUL in a query outright: a 500).
 */
const lookupable = (id: unknown): id is string => typeof id === 'string' && !CONTROL_CHARACTERS.test(id);

/** The other node a request must be served by, or null to serve it here. */
async function servingNode(routing: PhoneRouting, affinity: Exclude<NodeAffinity, 'any'>, c: Context<AppEnv>): Promise<string | null> {
  if (affinity === 'body-device') {
    let deviceId: unknown;
    try {
      deviceId = (JSON.parse(await c.req.text()) as { deviceId?: unknown } | null)?.deviceId;
    } catch {
      return null;
    }
    return lookupable(deviceId) ? routing.nodeOfDevice(deviceId) : null;
  }
  const id = c.req.param(affinity === 'call' ? 'callId' : 'deviceId');
  if (!lookupable(id)) return null;
  return affinity === 'call' ? routing.nodeOfCall(id) : routing.nodeOfDevice(id);
}

/**
 * Several gateways (docs/cluster.md): a request to a route served by a phone's node (its declared
 * affinity, http/affinity.ts), for a phone whose socket another node holds, is served by that node,
 * so its answer (202, 409 DEVICE_OFFLINE or DEVICE_BUSY, 504 DEVICE_TIMEOUT, a stream's status) is
 * the one that node gives, exactly as one gateway would give it. Runs after the credential check;
 * the serving node checks the credential again. A node that cannot be reached (dead: its phones are
 * offline) leaves the request to this node.
 */
export function forwardToPhoneNode(routing: PhoneRouting, log: Logger, affinity: Exclude<NodeAffinity, 'any'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (routing.fromNode(c.req.header(NODE_HEADER))) return next();
    const target = await servingNode(routing, affinity, c);
    if (!target) return next();
    const { method } = c.req;
    const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(await c.req.arrayBuffer());
    const url = new URL(c.req.url);
    const outcome = await routing.forward(target, { method, path: url.pathname + url.search, headers: c.req.raw.headers, body });
    if (outcome === 'timeout') throw new GatewayError('DEVICE_TIMEOUT', 'The gateway node that holds the phone did not answer in time');
    if (outcome !== 'unreachable') return outcome;
    log.warn({ node: target, path: c.req.path }, 'the node holding the phone could not be reached; serving the request here');
    return next();
  };
}

/** Names this node in answers to other nodes (they check that NODE_URL reaches the node it names). */
export function nameNodeToNodes(services: HttpServices): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const routing = services.routing;
    if (routing?.fromNode(c.req.header(NODE_HEADER))) c.res.headers.set(NODE_ID_HEADER, routing.nodeId);
  };
}

/**
 * A media socket of a call whose phone another node holds is passed to that node (after this node
 * checked the credential), byte for byte: the client cannot tell. A node that cannot be reached
 * leaves the socket to this node.
 */
export function proxyToPhoneNode(
  routing: PhoneRouting | undefined,
  authenticate: (req: IncomingMessage) => Promise<unknown>,
  log: Logger,
  handler: UpgradeHandler,
): UpgradeHandler {
  if (!routing) return handler;
  return async (req, socket, head, params) => {
    if (!routing.fromNode(req.headers[NODE_HEADER])) {
      const target = await routing.nodeOfCall(params.callId ?? '');
      if (target) {
        await authenticate(req);
        const outcome = await routing.proxyUpgrade(target, req, socket, head);
        if (outcome === 'proxied') return;
        if (outcome === 'timeout') throw new GatewayError('DEVICE_TIMEOUT', 'The gateway node that holds the phone did not answer in time');
        log.warn({ node: target, callId: params.callId }, 'the node holding the phone could not be reached; serving the media socket here');
      }
    }
    await handler(req, socket, head, params);
  };
}
