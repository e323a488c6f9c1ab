import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccountService } from '../accounts/index.js';
import { GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { PhoneSimulator } from '../simulator/index.js';
import { Webhook } from './verify.js';

export const DEMO_PHONE_NAME = 'Demo phone (simulated)';
export const DEMO_KEY_NAME = 'demo';
/** The console account the demo signs you in with (example.com is reserved for examples). */
export const DEMO_EMAIL = 'demo@example.com';

export interface Demo {
  deviceId: string;
  apiKey: string;
  webhookUrl: string;
  /** The console sign-in made for the demo; null when the data directory already has other accounts. */
  signIn: { email: string; password: string } | null;
  banner: string;
  stop(): Promise<void>;
}

export interface DemoOptions {
  /** Where the gateway's log lines go instead of this terminal, to name in the banner. */
  logFile?: string;
}

/**
 * A ready sign-in: on a fresh data directory the owner account is made for the demo (no setup token:
 * whoever runs the demo runs the server); on a later run the demo's own account gets a new password.
 * A data directory whose accounts are someone else's is left alone (null).
 */
async function demoSignIn(accounts: AccountService): Promise<Demo['signIn']> {
  const password = randomBytes(9).toString('base64url');
  if (await accounts.setupRequired()) {
    if (await accounts.ensureOwner(DEMO_EMAIL, password)) return { email: DEMO_EMAIL, password };
  }
  try {
    await accounts.setPassword(DEMO_EMAIL, password);
    return { email: DEMO_EMAIL, password };
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/**
 * `--demo`: one simulated phone paired to the gateway, a local webhook receiver that prints what
 * it gets (with its signature checked), and the curl command that places a first call.
 */
export async function startDemo(gateway: Gateway, out: (line: string) => void = (l) => void process.stdout.write(`${l}\n`), options: DemoOptions = {}): Promise<Demo> {
  const { devices, apiKeys, hub, settings, accounts } = gateway.services;
  for (const device of await devices.list()) {
    if (device.name === DEMO_PHONE_NAME) {
      await devices.remove(device.id);
      hub.revoke(device.id, 'replaced by a new demo phone');
    }
  }
  const pairing = await devices.createPairing(gateway.url);
  const phone = new PhoneSimulator({ gatewayUrl: gateway.url, name: DEMO_PHONE_NAME, dial: { outcome: 'answer', ringMs: 2000 }, audio: { kind: 'tone', frequency: 440 } });
  const { deviceId } = await phone.pair(pairing.code);
  await phone.connect();

  for (const key of await apiKeys.list()) if (key.name === DEMO_KEY_NAME) await apiKeys.revoke(key.id);
  const apiKey = gateway.config.gatewayApiKey ? '$HTTP_GATEWAY_API_KEY' : (await apiKeys.create(DEMO_KEY_NAME)).key;

  const verifier = new Webhook(settings.webhookSecret());
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signed = verifier.verify(body, req.headers) ? 'signature ok' : 'BAD SIGNATURE';
      try {
        const parsed = JSON.parse(body) as { event?: string; call?: { id?: string; state?: string } };
        out(`webhook  ${parsed.event ?? '?'}  call ${parsed.call?.id ?? '?'} is ${parsed.call?.state ?? '?'}  (${signed})`);
      } catch {
        out(`webhook  unreadable body (${signed})`);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;

  const signIn = await demoSignIn(accounts);

  const body = JSON.stringify({ deviceId, to: '+15550100', webhookUrl });
  const banner = [
    '',
    'Voice Gateway demo',
    `  console         ${gateway.url}/`,
    signIn
      ? `  sign in as      ${signIn.email}  password ${signIn.password}  (the owner account of this demo; a new password at every start)`
      : '  sign in as      your own account (forgot the password? npx voice-gateway reset-password <email>)',
    `  API reference   ${gateway.url}/docs`,
    `  simulated phone ${deviceId} is paired and connected; it answers after 2 s and plays a 440 Hz tone`,
    gateway.config.gatewayApiKey
      ? '  API key         $HTTP_GATEWAY_API_KEY  (export it in the terminal you paste the commands into)'
      : `  API key         ${apiKey}  (made for this demo; revoke it with DELETE /v1/api-keys/{id})`,
    ...(options.logFile ? [`  gateway log     ${options.logFile}  (kept out of this terminal: tail -f it to watch)`] : []),
    '',
    'Place a call:',
    `  curl -s -X POST ${gateway.url}/v1/calls -H "Authorization: Bearer ${apiKey}" -H "Content-Type: application/json" -d '${body}'`,
    'Then read its timeline:',
    `  curl -s ${gateway.url}/v1/calls/<call id>/events -H "Authorization: Bearer ${apiKey}"`,
    '',
    'Webhooks received (printed here as they arrive):',
  ].join('\n');
  out(banner);
  return {
    deviceId,
    apiKey,
    webhookUrl,
    signIn,
    banner,
    stop: async () => {
      phone.stop();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    },
  };
}
