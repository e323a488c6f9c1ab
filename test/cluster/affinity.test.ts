import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { affinityOf, type NodeAffinity } from '../../src/http/affinity.js';
import { registerRoutes } from '../../src/http/routes/index.js';
import type { AppEnv } from '../../src/http/services.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Every route the gateway registers, hidden ones too, as `METHOD path` with its declared affinity. */
function declaredRoutes(g: TestGateway): Map<string, NodeAffinity | undefined> {
  const app = new OpenAPIHono<AppEnv>();
  const routes = new Map<string, NodeAffinity | undefined>();
  const register = app.openapi.bind(app);
  app.openapi = ((route: RouteConfig, ...rest: unknown[]) => {
    routes.set(`${route.method.toUpperCase()} ${route.path}`, affinityOf(route));
    return (register as (...args: unknown[]) => unknown)(route, ...rest);
  }) as typeof app.openapi;
  registerRoutes(app, g.services);
  return routes;
}

/**
 * Several gateways (docs/cluster.md): a route that concerns a call or a phone says which node serves
 * it, on the route itself. A new one that does not say fails here, rather than being served by
 * whichever node the request reached.
 */
describe('node affinity is declared on the route', () => {
  let g: TestGateway;
  let routes: Map<string, NodeAffinity | undefined>;
  beforeAll(async () => {
    g = await startTestGateway();
    routes = declaredRoutes(g);
  });
  afterAll(() => g.close());

  it('every route that touches a call or a phone declares which node serves it', () => {
    const touching = [...routes.keys()].filter((route) => /\/v1\/(calls|devices)\b|\{(callId|deviceId)\}/.test(route));
    expect(touching.length).toBeGreaterThan(15);
    const undeclared = touching.filter((route) => routes.get(route) === undefined);
    expect(undeclared, `routes without a node affinity: ${undeclared.join(', ')}`).toEqual([]);
  });

  it('commands, streams, the assistant and a call\'s media status are served by the node holding the phone', () => {
    const byPhoneNode = [...routes].filter(([, affinity]) => affinity !== undefined && affinity !== 'any').map(([route, affinity]) => `${route} → ${affinity}`);
    expect(byPhoneNode.sort()).toEqual(
      [
        'POST /v1/calls → body-device',
        'GET /v1/calls/{callId} → call',
        'POST /v1/calls/{callId}/dtmf → call',
        'POST /v1/calls/{callId}/answer → call',
        'POST /v1/calls/{callId}/reject → call',
        'POST /v1/calls/{callId}/hangup → call',
        'POST /v1/calls/{callId}/hold → call',
        'POST /v1/calls/{callId}/unhold → call',
        'POST /v1/calls/{callId}/stream → call',
        'GET /v1/calls/{callId}/stream → call',
        'DELETE /v1/calls/{callId}/stream → call',
        'GET /v1/calls/{callId}/agent → call',
        'POST /v1/calls/{callId}/agent → call',
        'DELETE /v1/calls/{callId}/agent → call',
        'DELETE /v1/devices/{deviceId} → device',
      ].sort(),
    );
  });
});
