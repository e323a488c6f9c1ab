import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { AudioSpec } from './audio-source.js';
import { GatewayRequestError, isRecord, type PhoneCredentials } from './gateway-http.js';
import { PhoneSimulator } from './phone-simulator.js';
import type { DialOutcome, SimulatorLogger } from './types.js';
import type { SimInfo } from './protocol.js';

export const PHONE_USAGE = `Usage: voice-gateway phone --url <gateway url> (--code <code> | --token-file <path>) [options]

Plays a paired phone against a gateway: answers commands, reports calls, sends audio.
Runs until Ctrl-C.

  --url <url>           gateway address, http(s)://host:port (or env VOICE_GATEWAY_URL)
  --code <code>         pairing code (POST /v1/pairing or the console)
  --token-file <path>   keeps the device credentials; reused when present, written after pairing
  --name <name>         phone name (default "Phone simulator")
  --tone <hz>           the remote party plays a sine tone (default 440)
  --wav <file>          the remote party plays a 16 kHz mono 16-bit WAV file, looped
  --silence             the remote party is silent
  --outcome <outcome>   how dials end: answer (default), busy, no-answer, failed
  --ring-ms <ms>        time from dialing to the outcome (default 2000)
  --ring <number>       start an incoming call from <number> once connected
  --sims <list>         report SIMs and honour the dial's sim: carriers in slot order, comma
                        separated; * after a name marks the default, ! a SIM that cannot call,
                        an empty name an empty slot (e.g. "Telekom*,Vodafone!")
  -h, --help            show this text
`;

const OUTCOMES: readonly DialOutcome[] = ['answer', 'busy', 'no-answer', 'failed'];

export interface PhoneCommandIo {
  /** Where lines go (default: stdout). */
  out?: (line: string) => void;
  /** Stops the phone like SIGINT does. */
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  logger?: SimulatorLogger;
}

class UsageError extends Error {
  constructor(message: string) {
    super(`${message}\n\n${PHONE_USAGE}`);
    this.name = 'UsageError';
  }
}

/** `voice-gateway phone ...`: argv without the program name (a leading "phone" is skipped). */
export async function runPhoneCommand(argv: string[], io: PhoneCommandIo = {}): Promise<void> {
  const out = io.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const say = (line: string): void => out(`${new Date().toISOString().slice(11, 23)} ${line}`);
  const opts = parseOptions(argv[0] === 'phone' ? argv.slice(1) : argv, io.env ?? process.env);
  if (opts === 'help') return out(PHONE_USAGE);

  let credentials = opts.tokenFile ? readTokenFile(opts.tokenFile) : null;
  if (!credentials && !opts.code) throw new UsageError('no credentials: pass --code (and --token-file to keep them)');
  const sim = new PhoneSimulator({
    gatewayUrl: opts.url,
    name: opts.name,
    audio: opts.audio,
    dial: { outcome: opts.outcome, ringMs: opts.ringMs },
    ...(opts.sims ? { health: { sims: opts.sims } } : {}),
    ...(credentials ? { credentials } : {}),
    ...(io.logger ? { logger: io.logger } : {}),
  });
  const pair = async (code: string): Promise<void> => {
    credentials = await sim.pair(code);
    say(`paired as ${credentials.deviceId}`);
    if (opts.tokenFile) {
      writeTokenFile(opts.tokenFile, opts.url, credentials);
      say(`credentials saved to ${opts.tokenFile}`);
    }
  };
  if (!credentials && opts.code) await pair(opts.code);

  sim.on('connected', ({ deviceId }) => say(`connected to ${opts.url} as ${deviceId}`));
  sim.on('disconnected', ({ code, willReconnect }) => say(`disconnected (code ${code})${willReconnect ? ', reconnecting' : ''}`));
  sim.on('command', (c) => say(`command ${c.action} call=${c.callId}${Object.keys(c.payload).length ? ` ${JSON.stringify(c.payload)}` : ''}`));
  sim.on('ack', (a) => {
    if (!a.ok) say(`  refused: ${a.error?.code ?? ''} ${a.error?.message ?? ''}`);
  });
  sim.on('call', (c) => {
    const payload = Object.keys(c.payload).length ? ` ${JSON.stringify(c.payload)}` : '';
    say(`call ${c.callId ?? c.nativeCallId} ${c.direction} ${c.remoteNumber}: ${c.state} (${c.event}${payload})`);
  });
  sim.on('dtmf', ({ digits, callId }) => say(`dtmf ${digits} on call ${callId ?? '?'}`));
  sim.on('error', (e) => say(`gateway error ${e.code}: ${e.message}`));
  sim.on('protocol-violation', (p) => say(`protocol violation: ${p}`));

  try {
    await sim.connect();
  } catch (err) {
    if (!(err instanceof GatewayRequestError && err.status === 401 && opts.code && opts.tokenFile)) throw err;
    say('the saved token was refused; pairing again with --code');
    await pair(opts.code);
    await sim.connect();
  }

  if (opts.ring) {
    const from = opts.ring;
    say(`ringing: incoming call from ${from}`);
    sim.ringIncoming(from).then(
      (callId) => say(`the gateway named the incoming call ${callId}`),
      (err: unknown) => say(`could not ring: ${(err as Error).message}`),
    );
  }

  const why = await untilStopped(sim, io.signal);
  say(why);
  await sim.stop();
}

interface CliOptions {
  url: string;
  code: string | undefined;
  tokenFile: string | undefined;
  name: string;
  audio: AudioSpec;
  outcome: DialOutcome;
  ringMs: number;
  ring: string | undefined;
  sims: SimInfo[] | undefined;
}

/** `--sims "Telekom*,Vodafone!"`: slot 0 Telekom (default), slot 1 Vodafone (cannot call); an empty name skips a slot. */
export function parseSims(list: string): SimInfo[] {
  const items = list.split(',');
  if (items.length > 8) throw new UsageError('--sims takes at most 8 slots');
  const sims: SimInfo[] = [];
  items.forEach((item, slot) => {
    const m = /^([^*!]*)(\*?)(!?)$/.exec(item.trim());
    if (!m) throw new UsageError(`--sims: cannot read ${JSON.stringify(item)} (a carrier name, then * for the default, ! for unusable)`);
    const carrier = m[1]!.trim();
    if (!carrier) return;
    sims.push({ slot, carrier, defaultForCalls: m[2] === '*', usable: m[3] !== '!' });
  });
  return sims;
}

function parseOptions(args: string[], env: Record<string, string | undefined>): CliOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        code: { type: 'string' },
        'token-file': { type: 'string' },
        name: { type: 'string' },
        tone: { type: 'string' },
        wav: { type: 'string' },
        silence: { type: 'boolean' },
        outcome: { type: 'string' },
        'ring-ms': { type: 'string' },
        ring: { type: 'string' },
        sims: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  const url = values.url ?? env['VOICE_GATEWAY_URL'];
  if (!url) throw new UsageError('--url is required');
  if (!/^(https?|wss?):\/\//.test(url)) throw new UsageError(`--url must be http(s)://host:port, got ${url}`);
  if ([values.tone, values.wav, values.silence].filter((v) => v !== undefined).length > 1) {
    throw new UsageError('choose one of --tone, --wav and --silence');
  }
  let audio: AudioSpec = { kind: 'tone', frequency: 440 };
  if (values.wav !== undefined) audio = { kind: 'wav', path: values.wav };
  else if (values.silence) audio = { kind: 'silence' };
  else if (values.tone !== undefined) {
    const frequency = Number(values.tone);
    if (!(frequency > 0 && frequency < 8000)) throw new UsageError(`--tone must be a frequency between 0 and 8000 Hz, got ${values.tone}`);
    audio = { kind: 'tone', frequency };
  }
  const outcome = (values.outcome ?? 'answer') as DialOutcome;
  if (!OUTCOMES.includes(outcome)) throw new UsageError(`--outcome must be one of ${OUTCOMES.join(', ')}`);
  const ringMs = Number(values['ring-ms'] ?? 2000);
  if (!Number.isInteger(ringMs) || ringMs < 0) throw new UsageError(`--ring-ms must be a whole number of ms, got ${values['ring-ms']}`);
  return {
    url,
    code: values.code,
    tokenFile: values['token-file'],
    name: values.name ?? 'Phone simulator',
    audio,
    outcome,
    ringMs,
    ring: values.ring,
    sims: values.sims === undefined ? undefined : parseSims(values.sims),
  };
}

function readTokenFile(path: string): PhoneCredentials | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const data: unknown = JSON.parse(text);
  if (!isRecord(data) || typeof data['deviceId'] !== 'string' || typeof data['deviceToken'] !== 'string') {
    throw new Error(`${path} does not hold {deviceId, deviceToken}`);
  }
  return { deviceId: data['deviceId'], deviceToken: data['deviceToken'] };
}

function writeTokenFile(path: string, gatewayUrl: string, creds: PhoneCredentials): void {
  mkdirSync(dirname(path), { recursive: true });
  const body = { gatewayUrl, ...creds, pairedAt: new Date().toISOString() };
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
}

/** Resolves with a line saying why the phone stops: a signal, the abort signal, or the gateway. */
function untilStopped(sim: PhoneSimulator, signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const finish = (why: string): void => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      signal?.removeEventListener('abort', onAbort);
      sim.off('revoked', onRevoked);
      sim.off('replaced', onReplaced);
      resolve(why);
    };
    const onSigint = (): void => finish('stopping (SIGINT)');
    const onSigterm = (): void => finish('stopping (SIGTERM)');
    const onAbort = (): void => finish('stopping');
    const onRevoked = (): void => finish('the gateway revoked this phone; stopping');
    const onReplaced = (): void => finish('another connection of this phone took over; stopping');
    process.once('SIGINT', onSigint);
    process.once('SIGTERM', onSigterm);
    sim.on('revoked', onRevoked);
    sim.on('replaced', onReplaced);
    if (signal?.aborted) return finish('stopping');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
