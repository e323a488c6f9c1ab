import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AndroidToolError, runOk, withLock } from './exec.js';
import { ANDROID_DIR } from './paths.js';

/**
 * The key the APK is signed with. Android installs an update only over an APK signed with the same
 * key, so the key must stay the same across builds: either the operator's own (environment
 * variables), or one made once in android/.keystore/ (gitignored) on this machine.
 */
export interface SigningKey {
  keystore: string;
  /** Which entry of the keystore; apksigner takes the only one when absent. */
  alias: string | undefined;
  storePassword: string;
  keyPassword: string;
  origin: 'environment' | 'local';
}

export const KEYSTORE_DIR = path.join(ANDROID_DIR, '.keystore');
const LOCAL_ALIAS = 'voice-gateway';

/** The operator's key from VG_ANDROID_KEYSTORE and friends, or undefined when none is named. */
export function signingKeyFromEnv(env: NodeJS.ProcessEnv): SigningKey | undefined {
  const keystore = env.VG_ANDROID_KEYSTORE;
  if (!keystore) {
    const stray = ['VG_ANDROID_KEYSTORE_PASSWORD', 'VG_ANDROID_KEY_ALIAS', 'VG_ANDROID_KEY_PASSWORD'].filter((v) => env[v]);
    if (stray.length) throw new AndroidToolError(`${stray.join(', ')} set without VG_ANDROID_KEYSTORE (the path of your keystore)`);
    return undefined;
  }
  if (!existsSync(keystore)) throw new AndroidToolError(`VG_ANDROID_KEYSTORE names ${keystore}, which does not exist`);
  const storePassword = env.VG_ANDROID_KEYSTORE_PASSWORD;
  if (!storePassword) throw new AndroidToolError('VG_ANDROID_KEYSTORE is set but VG_ANDROID_KEYSTORE_PASSWORD is not');
  return {
    keystore: path.resolve(keystore),
    alias: env.VG_ANDROID_KEY_ALIAS || undefined,
    storePassword,
    keyPassword: env.VG_ANDROID_KEY_PASSWORD || storePassword,
    origin: 'environment',
  };
}

/** The key in `dir`, made on first use: a PKCS#12 keystore and its generated password (0600) beside it. */
export async function ensureLocalKey(keytool: string, dir: string = KEYSTORE_DIR): Promise<SigningKey> {
  const keystore = path.join(dir, 'voice-gateway.p12');
  const passwordFile = path.join(dir, 'password');
  const existing = (): SigningKey | undefined => {
    if (!existsSync(keystore)) return undefined;
    if (!existsSync(passwordFile)) {
      throw new AndroidToolError(`${keystore} exists but its password file ${passwordFile} is missing; restore it (a new key would stop updates installing over the app)`);
    }
    const password = readFileSync(passwordFile, 'utf8').trim();
    return { keystore, alias: LOCAL_ALIAS, storePassword: password, keyPassword: password, origin: 'local' };
  };
  const found = existing();
  if (found) return found;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return withLock(path.join(dir, '.lock'), async () => {
    const again = existing();
    if (again) return again;
    const password = randomBytes(24).toString('base64url');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    chmodSync(passwordFile, 0o600);
    // The password goes through the environment, never the command line (visible in ps).
    await runOk('keytool -genkeypair', keytool, [
      '-genkeypair', '-keystore', keystore, '-storetype', 'PKCS12', '-alias', LOCAL_ALIAS,
      '-keyalg', 'EC', '-groupname', 'secp256r1', '-validity', '10000', '-dname', 'CN=Voice Gateway (local build)',
      '-storepass:env', 'VG_KEYTOOL_PASSWORD', '-keypass:env', 'VG_KEYTOOL_PASSWORD',
    ], { env: { ...process.env, VG_KEYTOOL_PASSWORD: password } });
    chmodSync(keystore, 0o600);
    return existing()!;
  });
}

/** The operator's key when VG_ANDROID_KEYSTORE is set, else the local one (made on first use). */
export async function resolveSigningKey(keytool: string, env: NodeJS.ProcessEnv = process.env, dir: string = KEYSTORE_DIR): Promise<SigningKey> {
  return signingKeyFromEnv(env) ?? ensureLocalKey(keytool, dir);
}

/** apksigner's key options, with the passwords passed through the environment. */
export function apksignerKeyOptions(key: SigningKey): { args: string[]; env: NodeJS.ProcessEnv } {
  return {
    args: ['--ks', key.keystore, '--ks-pass', 'env:VG_APKSIGNER_KS_PASS', '--key-pass', 'env:VG_APKSIGNER_KEY_PASS', ...(key.alias ? ['--ks-key-alias', key.alias] : [])],
    env: { ...process.env, VG_APKSIGNER_KS_PASS: key.storePassword, VG_APKSIGNER_KEY_PASS: key.keyPassword },
  };
}
