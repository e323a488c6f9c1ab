import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { GatewayError, invalidInput } from '../../errors.js';
import { qrSvg } from '../../phones/index.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, PUBLIC } from '../openapi.js';
import { PublicUrl } from '../schemas/common.js';
import { cameOverHttps } from '../session.js';
import type { HttpServices } from '../services.js';

/** Where `npm run build:android` writes the app (scripts/android/build.ts). */
export const APP_APK_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../android/build/voice-gateway.apk');
export const APP_DOWNLOAD_PATH = '/app/voice-gateway.apk';
const APK_TYPE = 'application/vnd.android.package-archive';

interface Built {
  /** Identity of the file on disk: a rebuild (a new file renamed over it) changes it. */
  identity: string;
  body: Buffer;
  etag: string;
  lastModified: string;
}

/**
 * The APK as last read from disk, with its SHA-256 as the ETag; read again only when the file
 * changes. undefined when it has not been built.
 */
function apkReader(file: string): () => Promise<Built | undefined> {
  let cached: Built | undefined;
  return async () => {
    const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!info?.isFile()) return undefined;
    const identity = `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (cached?.identity !== identity) {
      const body = await readFile(file);
      cached = { identity, body, etag: `"${createHash('sha256').update(body).digest('hex')}"`, lastModified: info.mtime.toUTCString() };
    }
    return cached;
  };
}

const notBuilt = (): GatewayError =>
  new GatewayError('NOT_FOUND', 'The Android app has not been built on this gateway. Build it with `npm run build:android` in the gateway\'s folder (it needs a JDK), then download it again.');

/** An address as compared: parsed and written back (case of the host, default port), without trailing slashes. */
function normalized(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/**
 * Whether `url` is the gateway's own public address: the configured one (PUBLIC_URL, or the one
 * saved in the settings), the origin the request itself came to (its Host header), or the address of
 * a pairing code made in the last ten minutes (the console asks for one when none is configured).
 * Anything else would be a QR code for a stranger's host with the gateway's name on it.
 */
async function isOwnAddress(url: string, c: Context, services: HttpServices): Promise<boolean> {
  const wanted = normalized(url);
  if (wanted === undefined) return false;
  if (wanted === normalized(services.settings.publicUrl())) return true;
  const host = c.req.header('host');
  if (host && wanted === normalized(`${cameOverHttps(c) ? 'https' : 'http'}://${host.trim()}`)) return true;
  return services.devices.isPairingAddress(url.replace(/\/+$/, ''));
}

export function registerAppDownloadRoutes(app: GatewayApp, services: HttpServices): void {
  const apk = apkReader(services.appApkPath);

  app.openapi(
    createRoute({
      method: 'get',
      path: APP_DOWNLOAD_PATH,
      operationId: 'downloadApp',
      tags: ['App'],
      summary: 'The Android app, to install on the phone (HEAD tells whether it is built)',
      description:
        'The APK built by `npm run build:android`. No credential: a phone downloads it from a QR code. The ETag is the SHA-256 of the file, so a download can be checked with `sha256sum`.',
      ...PUBLIC,
      responses: {
        200: {
          description: 'The APK',
          headers: {
            ETag: { description: 'The SHA-256 of the APK, in hex, quoted', schema: { type: 'string' } },
            'Last-Modified': { description: 'When it was built', schema: { type: 'string' } },
            'Content-Disposition': { description: 'attachment; filename="voice-gateway.apk"', schema: { type: 'string' } },
          },
          content: { [APK_TYPE]: { schema: z.string().openapi({ format: 'binary' }) } },
        },
        304: { description: 'Unchanged since the ETag sent in If-None-Match' },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const built = await apk();
      if (!built) throw notBuilt();
      const headers = { ETag: built.etag, 'Last-Modified': built.lastModified, 'Cache-Control': 'no-cache' };
      if ((c.req.header('if-none-match') ?? '').split(/\s*,\s*/).includes(built.etag)) return c.body(null, 304, headers);
      return c.body(new Uint8Array(built.body), 200, {
        ...headers,
        'Content-Type': APK_TYPE,
        'Content-Length': String(built.body.length),
        'Content-Disposition': 'attachment; filename="voice-gateway.apk"',
        'X-Content-Type-Options': 'nosniff',
      });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/app/install-qr.svg',
      operationId: 'getAppInstallQrCode',
      tags: ['App'],
      summary: 'A QR code of the app\'s download address, for a phone\'s camera',
      description:
        'Encodes `<url>/app/voice-gateway.apk`. The console shows it beside the pairing QR code. Only for the gateway\'s own address: ' +
        'the configured public address (`PUBLIC_URL` or the settings), the origin the request came to, or the address of a pairing code ' +
        'made in the last ten minutes; any other is 400, so nobody can have the gateway draw a QR code for another host.',
      ...PUBLIC,
      request: {
        query: z.object({
          url: PublicUrl.openapi({ description: 'The gateway\'s own address as the phone reaches it (the console passes the public address it shows)', example: 'http://192.168.1.20:8080' }),
        }),
      },
      responses: {
        200: { description: 'SVG markup of the QR code', content: { 'image/svg+xml': { schema: z.string() } } },
        ...errorResponses(400),
      },
    }),
    async (c) => {
      // `url` is required: open to everybody, the answer must not reveal the saved public address.
      const base = c.req.valid('query').url;
      if (!(await isOwnAddress(base, c, services))) {
        throw invalidInput('query.url', 'must be this gateway\'s own address: its public address (PUBLIC_URL or the settings), the address this request came to, or that of a current pairing code', 'not_own_address');
      }
      const svg = await qrSvg(`${base.replace(/\/+$/, '')}${APP_DOWNLOAD_PATH}`);
      return c.body(svg, 200, { 'Content-Type': 'image/svg+xml; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    },
  );
}
