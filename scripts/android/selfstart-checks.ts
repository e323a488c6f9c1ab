/**
 * What only the built APK can show about starting the audio helper without a computer (issue 24,
 * docs/android.md "Starting it from the phone itself"): the permission `adb shell pm grant` needs to
 * find declared, the boot receiver that starts the helper again, the receiver of the notification's
 * inline reply kept private, and the platform calls the flow is built on (NsdManager, RemoteInput,
 * Settings.Global). Pure: reads aapt's manifest tree and the classes dexdump found.
 */
import { findAll, type XmlElement } from './aapt-dump.js';
import type { DexClass } from './dexdump.js';
import { componentClass, type CheckResult } from './manifest-checks.js';

export const WRITE_SECURE_SETTINGS = 'android.permission.WRITE_SECURE_SETTINGS';
export const BOOT_RECEIVER = 'dev.voicegateway.app.service.BootReceiver';
export const PAIRING_CODE_RECEIVER = 'dev.voicegateway.app.adb.PairingCodeReceiver';

const attr = (e: XmlElement, name: string): string | number | boolean | undefined => e.attributes[`android:${name}`];
const actions = (component: XmlElement): string[] =>
  findAll(component, 'intent-filter').flatMap((f) => findAll(f, 'action').map((a) => String(attr(a, 'name'))));

/** The manifest's side: the grant's permission declared, the boot receiver, the private reply receiver. */
export function checkSelfStartManifest(manifest: XmlElement, packageName: string): CheckResult {
  const problems: string[] = [];
  const permissions = findAll(manifest, 'uses-permission').map((p) => String(attr(p, 'name')));
  if (!permissions.includes(WRITE_SECURE_SETTINGS)) {
    problems.push(`${WRITE_SECURE_SETTINGS} is not declared: \`adb shell pm grant\` refuses a permission the app does not request, so the boot start could never turn Wireless debugging on`);
  }
  const receivers = findAll(manifest, 'receiver');
  const byClass = (cls: string): XmlElement[] => receivers.filter((r) => componentClass(packageName, String(attr(r, 'name') ?? '')) === cls);
  const boot = byClass(BOOT_RECEIVER);
  if (boot.length !== 1) problems.push(`${BOOT_RECEIVER} is declared ${boot.length} times, expected once`);
  else {
    if (attr(boot[0]!, 'exported') !== true) problems.push(`${BOOT_RECEIVER} must be exported: the system sends BOOT_COMPLETED from outside the app`);
    if (!actions(boot[0]!).includes('android.intent.action.BOOT_COMPLETED')) problems.push(`${BOOT_RECEIVER} does not handle android.intent.action.BOOT_COMPLETED: nothing starts the helper after a restart`);
    // The ADB key is in credential-protected storage: a locked-boot start could not read it (docs/android.md).
    if (actions(boot[0]!).includes('android.intent.action.LOCKED_BOOT_COMPLETED') || attr(boot[0]!, 'directBootAware') === true) {
      problems.push(`${BOOT_RECEIVER} is direct-boot aware or handles LOCKED_BOOT_COMPLETED, but the ADB key stays in credential-protected storage until the first unlock`);
    }
  }
  const reply = byClass(PAIRING_CODE_RECEIVER);
  if (reply.length !== 1) problems.push(`${PAIRING_CODE_RECEIVER} is declared ${reply.length} times, expected once: the notification's pairing code would reach nothing`);
  else {
    if (attr(reply[0]!, 'exported') !== false) problems.push(`${PAIRING_CODE_RECEIVER} must set android:exported="false": only the app's own PendingIntent may hand it a pairing code`);
    if (findAll(reply[0]!, 'intent-filter').length > 0) problems.push(`${PAIRING_CODE_RECEIVER} has an intent filter, which would let other apps address it`);
  }
  return { name: 'self-start declared: WRITE_SECURE_SETTINGS, the boot receiver, the private pairing-code receiver', problems };
}

interface Call {
  owner: string;
  name: string;
  descriptor: string;
  why: string;
}

const CALLS: readonly Call[] = [
  { owner: 'android/net/nsd/NsdManager', name: 'discoverServices', descriptor: '(Ljava/lang/String;ILandroid/net/nsd/NsdManager$DiscoveryListener;)V', why: 'nothing would find the pairing or connect service' },
  { owner: 'android/net/nsd/NsdManager', name: 'resolveService', descriptor: '(Landroid/net/nsd/NsdServiceInfo;Landroid/net/nsd/NsdManager$ResolveListener;)V', why: 'no port would be known' },
  { owner: 'android/app/RemoteInput$Builder', name: '<init>', descriptor: '(Ljava/lang/String;)V', why: 'the notification would have no reply field for the code' },
  { owner: 'android/app/Notification$Action$Builder', name: 'addRemoteInput', descriptor: '(Landroid/app/RemoteInput;)Landroid/app/Notification$Action$Builder;', why: 'the reply field would not be attached to the action' },
  { owner: 'android/app/RemoteInput', name: 'getResultsFromIntent', descriptor: '(Landroid/content/Intent;)Landroid/os/Bundle;', why: 'the typed code would never be read' },
  { owner: 'android/provider/Settings$Global', name: 'putInt', descriptor: '(Landroid/content/ContentResolver;Ljava/lang/String;I)Z', why: 'Wireless debugging could not be turned on at boot, nor put back' },
];

/** The code's side: the reply receiver is a BroadcastReceiver, and the platform calls the flow rests on are made. */
export function checkSelfStartCode(classes: readonly DexClass[]): CheckResult {
  const problems: string[] = [];
  const internal = PAIRING_CODE_RECEIVER.replace(/\./g, '/');
  const receiver = classes.find((c) => c.name === internal);
  if (!receiver) problems.push(`${PAIRING_CODE_RECEIVER} is not in the dex`);
  else {
    if (receiver.superName !== 'android/content/BroadcastReceiver') problems.push(`${PAIRING_CODE_RECEIVER} extends ${receiver.superName}, not android.content.BroadcastReceiver`);
    if (!receiver.methods.some((m) => m.name === 'onReceive' && m.descriptor === '(Landroid/content/Context;Landroid/content/Intent;)V')) {
      problems.push(`${PAIRING_CODE_RECEIVER} does not override onReceive(Context, Intent)`);
    }
  }
  const made = (c: Call): boolean =>
    classes.some((k) => k.name.startsWith('dev/voicegateway/') && k.references.some((r) => r.kind === 'method' && r.owner === c.owner && r.name === c.name && r.descriptor === c.descriptor));
  for (const c of CALLS) if (!made(c)) problems.push(`no call of ${c.owner.replace(/\//g, '.')}.${c.name}${c.descriptor}: ${c.why}`);
  return { name: 'self-start code: the reply receiver, NsdManager, RemoteInput and Settings.Global calls', problems };
}
