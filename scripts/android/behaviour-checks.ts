/**
 * What only the built APK can show about the app's behaviour on a phone: the platform callbacks it
 * overrides, so that Telecom's requests reach the app (docs/android.md, "What has not been verified
 * on a device"). Pure: reads the classes dexdump found.
 */
import type { DexClass } from './dexdump.js';
import type { CheckResult } from './manifest-checks.js';

interface Override {
  /** Internal name of the app's class. */
  owner: string;
  name: string;
  descriptor: string;
  /** What the person notices without it. */
  why: string;
}

const OVERRIDES: readonly Override[] = [
  {
    owner: 'dev/voicegateway/app/telecom/CallService',
    name: 'onBringToForeground',
    descriptor: '(Z)V',
    why: 'the lock screen\'s "Return to call" would do nothing (InCallService\'s default is empty)',
  },
];

/** Each platform callback the app must override is defined by the app's class itself. */
export function checkOverrides(classes: readonly DexClass[]): CheckResult {
  const byName = new Map(classes.map((c) => [c.name, c]));
  const problems = OVERRIDES.filter((o) => !byName.get(o.owner)?.methods.some((m) => m.name === o.name && m.descriptor === o.descriptor)).map(
    (o) => `${o.owner.replace(/\//g, '.')} does not override ${o.name}${o.descriptor}: ${o.why}`,
  );
  return { name: 'the platform callbacks the app relies on are overridden', problems };
}

interface Call {
  owner: string;
  name: string;
  descriptor: string;
  why: string;
}

const CALLS: readonly Call[] = [
  {
    owner: 'android/os/PowerManager$WakeLock',
    name: 'acquire',
    descriptor: '(J)V',
    why: 'reconnect attempts would stop in deep sleep (a partial wake lock with a timeout)',
  },
  {
    owner: 'android/app/AlarmManager',
    name: 'setAndAllowWhileIdle',
    descriptor: '(IJLandroid/app/PendingIntent;)V',
    why: 'nothing would wake the phone in Doze to reconnect',
  },
];

/** The platform calls the reconnect in deep sleep relies on are made by the app's code. */
export function checkWakeCalls(classes: readonly DexClass[]): CheckResult {
  const made = (c: Call): boolean =>
    classes.some((k) => k.name.startsWith('dev/voicegateway/') && k.references.some((r) => r.kind === 'method' && r.owner === c.owner && r.name === c.name && r.descriptor === c.descriptor));
  return {
    name: 'the wake lock and the alarm of the reconnect are used',
    problems: CALLS.filter((c) => !made(c)).map((c) => `no call of ${c.owner.replace(/\//g, '.')}.${c.name}${c.descriptor}: ${c.why}`),
  };
}
