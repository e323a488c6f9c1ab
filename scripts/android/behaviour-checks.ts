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
