import type { RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { forwardToPhoneNode } from './forward.js';
import type { AppEnv, HttpServices } from './services.js';

/**
 * Which node of a cluster serves a route (docs/cluster.md). One gateway serves everything itself;
 * on several, what depends on a phone's socket (commands, a call's stream, assistant and
 * `media.streaming`) is served by the node holding that phone:
 * - `call`: the phone of the call named by the `callId` path parameter;
 * - `device`: the phone named by the `deviceId` path parameter;
 * - `body-device`: the phone named by the JSON body's `deviceId` (placing a call);
 * - `any`: whatever node the request reached (the answer is read from the database).
 */
export type NodeAffinity = 'any' | 'call' | 'device' | 'body-device';

/** Where a route keeps its declared affinity (a symbol: the OpenAPI document does not show it). */
export const NODE_AFFINITY: unique symbol = Symbol('node affinity');

export type RouteWithAffinity = RouteConfig & { [NODE_AFFINITY]?: NodeAffinity };

/**
 * Declares the node that serves `route`: every route under /v1/calls and /v1/devices declares one
 * (test/cluster/affinity.test.ts). On a node of a cluster, a route served by a phone's node gets the
 * middleware that passes the request there; on one gateway it gets nothing.
 */
export function servedBy<R extends RouteConfig>(affinity: NodeAffinity, route: R, services: Pick<HttpServices, 'routing' | 'log'>): R {
  const declared = route as R & { [NODE_AFFINITY]: NodeAffinity; middleware?: MiddlewareHandler<AppEnv>[] };
  declared[NODE_AFFINITY] = affinity;
  if (affinity !== 'any' && services.routing) declared.middleware = [forwardToPhoneNode(services.routing, services.log, affinity)];
  return route;
}

export const affinityOf = (route: RouteConfig): NodeAffinity | undefined => (route as RouteWithAffinity)[NODE_AFFINITY];
