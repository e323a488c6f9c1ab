import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError, invalidInput } from '../errors.js';
import type { Logger } from '../log.js';
import { CONTROL_CHARACTERS, NO_CONTROLS_MESSAGE } from '../text.js';
import { writeRawError } from './node-server.js';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>) => void | Promise<void>;

/**
 * Routes WebSocket upgrades by path. Credentials are checked by each handler before the upgrade is
 * accepted, so an unauthenticated client never gets a socket.
 */
export class UpgradeRouter {
  private readonly routes: Array<{ pattern: RegExp; names: string[]; handler: UpgradeHandler }> = [];

  constructor(private readonly log: Logger) {}

  /** `path` may hold `{name}` segments. */
  add(path: string, handler: UpgradeHandler): void {
    const names: string[] = [];
    const source = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ pattern: new RegExp(`^${source}$`), names, handler });
  }

  handle = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', (err) => this.log.debug({ err }, 'upgrade socket error'));
    let pathname: string;
    let route: { handler: UpgradeHandler; params: Record<string, string> } | undefined;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      route = this.match(pathname);
    } catch {
      // An unparsable target or a malformed %-escape: the client's mistake, never the process's end.
      return writeRawError(socket, invalidInput('target', 'not a valid path', 'invalid_target'));
    }
    if (!route) return writeRawError(socket, new GatewayError('NOT_FOUND', `No WebSocket at ${pathname}`));
    const { handler, params } = route;
    // Path parameters follow the REST routes' text rule (src/text.ts).
    const bad = Object.entries(params).find(([, value]) => CONTROL_CHARACTERS.test(value));
    if (bad) return writeRawError(socket, invalidInput(`path.${bad[0]}`, NO_CONTROLS_MESSAGE, 'invalid_format'));
    Promise.resolve()
      .then(() => handler(req, socket, head, params))
      .catch((err: unknown) => {
        if (err instanceof GatewayError) return writeRawError(socket, err);
        this.log.error({ err, path: pathname }, 'upgrade failed');
        writeRawError(socket, new GatewayError('INTERNAL_ERROR', 'Internal error'));
      });
  };

  /** The route for a path and its decoded parameters; throws URIError on a malformed escape. */
  private match(pathname: string): { handler: UpgradeHandler; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      const m = route.pattern.exec(pathname);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
      return { handler: route.handler, params };
    }
    return undefined;
  }
}
