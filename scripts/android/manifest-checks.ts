import { findAll, type Badging, type XmlElement } from './aapt-dump.js';

/** A check of the built APK: its name and what is wrong (nothing when it passes). */
export interface CheckResult {
  name: string;
  problems: string[];
}

export interface ManifestExpectations {
  packageName: string;
  minSdk: number;
  targetSdk: number;
  /** Exactly these permissions, no more and no fewer: adding one is a conscious change. */
  permissions: readonly string[];
}

const ANDROID = 'android.';
const attr = (e: XmlElement, name: string): string | number | boolean | undefined => e.attributes[`android:${name}`];
const nameOf = (e: XmlElement): string => String(attr(e, 'name') ?? '');

/** `.ui.StatusActivity` -> `dev.voicegateway.app.ui.StatusActivity`, as Android resolves it. */
export function componentClass(packageName: string, name: string): string {
  if (name.startsWith('.')) return packageName + name;
  return name.includes('.') ? name : `${packageName}.${name}`;
}

interface Filter {
  actions: string[];
  categories: string[];
  schemes: string[];
  hosts: string[];
}

const filters = (component: XmlElement): Filter[] =>
  component.children
    .filter((c) => c.name === 'intent-filter')
    .map((f) => ({
      actions: f.children.filter((c) => c.name === 'action').map(nameOf),
      categories: f.children.filter((c) => c.name === 'category').map(nameOf),
      schemes: f.children.filter((c) => c.name === 'data').map((d) => String(attr(d, 'scheme') ?? '')).filter(Boolean),
      hosts: f.children.filter((c) => c.name === 'data').map((d) => String(attr(d, 'host') ?? '')).filter(Boolean),
    }));

const COMPONENTS = ['activity', 'activity-alias', 'service', 'receiver', 'provider'];

/**
 * Foreground service types (Android 14) and the permissions each needs: all of `allOf`, and one of
 * `anyOf` when given. From the @RequiresPermission annotations of ServiceInfo.FOREGROUND_SERVICE_TYPE_*
 * in API 34's android.txt (see ../shared/android/android-api-34-excerpts.txt).
 */
export const FOREGROUND_SERVICE_TYPES: ReadonlyArray<{ name: string; bit: number; allOf: readonly string[]; anyOf?: readonly string[] }> = [
  { name: 'dataSync', bit: 0x1, allOf: ['FOREGROUND_SERVICE_DATA_SYNC'] },
  { name: 'mediaPlayback', bit: 0x2, allOf: ['FOREGROUND_SERVICE_MEDIA_PLAYBACK'] },
  { name: 'phoneCall', bit: 0x4, allOf: ['FOREGROUND_SERVICE_PHONE_CALL'], anyOf: ['MANAGE_OWN_CALLS'] },
  { name: 'location', bit: 0x8, allOf: ['FOREGROUND_SERVICE_LOCATION'], anyOf: ['ACCESS_COARSE_LOCATION', 'ACCESS_FINE_LOCATION'] },
  {
    name: 'connectedDevice',
    bit: 0x10,
    allOf: ['FOREGROUND_SERVICE_CONNECTED_DEVICE'],
    anyOf: ['BLUETOOTH_ADVERTISE', 'BLUETOOTH_CONNECT', 'BLUETOOTH_SCAN', 'CHANGE_NETWORK_STATE', 'CHANGE_WIFI_STATE', 'CHANGE_WIFI_MULTICAST_STATE', 'NFC', 'TRANSMIT_IR', 'UWB_RANGING'],
  },
  { name: 'mediaProjection', bit: 0x20, allOf: ['FOREGROUND_SERVICE_MEDIA_PROJECTION'] },
  { name: 'camera', bit: 0x40, allOf: ['FOREGROUND_SERVICE_CAMERA'], anyOf: ['CAMERA'] },
  { name: 'microphone', bit: 0x80, allOf: ['FOREGROUND_SERVICE_MICROPHONE'], anyOf: ['CAPTURE_AUDIO_OUTPUT', 'RECORD_AUDIO'] },
  { name: 'health', bit: 0x100, allOf: ['FOREGROUND_SERVICE_HEALTH'], anyOf: ['ACTIVITY_RECOGNITION', 'BODY_SENSORS', 'HIGH_SAMPLING_RATE_SENSORS'] },
  { name: 'remoteMessaging', bit: 0x200, allOf: ['FOREGROUND_SERVICE_REMOTE_MESSAGING'] },
  { name: 'systemExempted', bit: 0x400, allOf: ['FOREGROUND_SERVICE_SYSTEM_EXEMPTED'] },
  { name: 'shortService', bit: 0x800, allOf: [] },
  { name: 'specialUse', bit: 0x40000000, allOf: ['FOREGROUND_SERVICE_SPECIAL_USE'] },
];

/** The checks of the compiled manifest: what `aapt dump badging` and `aapt dump xmltree` show. */
export function checkManifest(manifest: XmlElement, badging: Badging, expected: ManifestExpectations): CheckResult[] {
  const application = manifest.children.find((c) => c.name === 'application');
  const components = application ? application.children.filter((c) => COMPONENTS.includes(c.name)) : [];
  const label = (c: XmlElement): string => `${c.name} ${nameOf(c) || '(no name)'}`;
  const declared = new Set(findAll(manifest, 'uses-permission').map(nameOf));
  const has = (permission: string): boolean => declared.has(permission.includes('.') ? permission : `android.permission.${permission}`);
  const results: CheckResult[] = [];

  const sdk: string[] = [];
  if (badging.packageName !== expected.packageName) sdk.push(`package is ${badging.packageName}, expected ${expected.packageName}`);
  if (badging.targetSdk !== expected.targetSdk) sdk.push(`targetSdkVersion is ${badging.targetSdk}, expected ${expected.targetSdk}`);
  if (!(badging.minSdk >= expected.minSdk)) sdk.push(`minSdkVersion is ${badging.minSdk}, expected at least ${expected.minSdk}`);
  if (!(badging.versionCode > 0)) sdk.push(`versionCode is ${badging.versionCode}`);
  if (!badging.launchableActivity) sdk.push('no launcher activity (MAIN + LAUNCHER)');
  results.push({ name: 'package, SDK levels and launcher', problems: sdk });

  const permissions: string[] = [];
  const wanted = new Set(expected.permissions);
  for (const p of badging.permissions) if (!wanted.has(p)) permissions.push(`${p} is requested but not expected (add it to the expected list if it is meant)`);
  for (const p of wanted) if (!badging.permissions.includes(p)) permissions.push(`${p} is expected but not requested`);
  for (const p of declared) if (!badging.permissions.includes(p)) permissions.push(`${p} is in the manifest tree but not in aapt's badging`);
  results.push({ name: 'exactly the expected permissions', problems: permissions });

  const exported = components.filter((c) => attr(c, 'exported') === undefined).map((c) => `${label(c)} does not set android:exported`);
  if (components.length === 0) exported.push('the manifest declares no components');
  results.push({ name: 'android:exported set on every component', problems: exported });

  const inCall = components.filter((c) => c.name === 'service' && filters(c).some((f) => f.actions.includes('android.telecom.InCallService')));
  const inCallProblems: string[] = [];
  if (inCall.length === 0) inCallProblems.push('no service handles android.telecom.InCallService');
  for (const service of inCall) {
    if (attr(service, 'permission') !== 'android.permission.BIND_INCALL_SERVICE') inCallProblems.push(`${label(service)} is not protected by BIND_INCALL_SERVICE`);
    const ui = service.children.find((c) => c.name === 'meta-data' && nameOf(c) === 'android.telecom.IN_CALL_SERVICE_UI');
    if (!ui || attr(ui, 'value') !== true) inCallProblems.push(`${label(service)} lacks meta-data android.telecom.IN_CALL_SERVICE_UI = true`);
    if (attr(service, 'exported') !== true) inCallProblems.push(`${label(service)} must be exported for Telecom to bind it`);
  }
  results.push({ name: 'InCallService for the dialer role', problems: inCallProblems });

  // RoleManager.ROLE_DIALER asks for an activity that handles ACTION_DIAL with and without tel:.
  const activities = components.filter((c) => c.name === 'activity' || c.name === 'activity-alias');
  const dials = (withTel: boolean): boolean =>
    activities.some(
      (a) =>
        attr(a, 'exported') === true &&
        filters(a).some((f) => f.actions.includes('android.intent.action.DIAL') && f.categories.includes('android.intent.category.DEFAULT') && (withTel ? f.schemes.includes('tel') : f.schemes.length === 0)),
    );
  const dialer: string[] = [];
  if (!dials(false)) dialer.push('no exported activity handles ACTION_DIAL without data (category DEFAULT)');
  if (!dials(true)) dialer.push('no exported activity handles ACTION_DIAL with a tel: URI (category DEFAULT)');
  results.push({ name: 'dialer intent filters (ACTION_DIAL with and without tel:)', problems: dialer });

  const deepLink = activities.some(
    (a) =>
      attr(a, 'exported') === true &&
      filters(a).some(
        (f) =>
          f.actions.includes('android.intent.action.VIEW') &&
          f.categories.includes('android.intent.category.DEFAULT') &&
          f.categories.includes('android.intent.category.BROWSABLE') &&
          f.schemes.includes('voicegateway') &&
          f.hosts.includes('pair'),
      ),
  );
  results.push({ name: 'deep link voicegateway://pair', problems: deepLink ? [] : ['no exported, BROWSABLE activity opens voicegateway://pair'] });

  const fgs: string[] = [];
  const typed = components.filter((c) => c.name === 'service' && attr(c, 'foregroundServiceType') !== undefined);
  if (typed.length === 0) fgs.push('no service declares android:foregroundServiceType (required for startForeground at targetSdk 34)');
  if (typed.length > 0 && !has('FOREGROUND_SERVICE')) fgs.push('android.permission.FOREGROUND_SERVICE is not requested');
  for (const service of typed) {
    const bits = Number(attr(service, 'foregroundServiceType'));
    const types = FOREGROUND_SERVICE_TYPES.filter((t) => (bits & t.bit) !== 0);
    if (types.length === 0) fgs.push(`${label(service)} has an unknown foregroundServiceType 0x${bits.toString(16)}`);
    for (const type of types) {
      for (const p of type.allOf) if (!has(p)) fgs.push(`${label(service)} (${type.name}) needs android.permission.${p}`);
      if (type.anyOf && !type.anyOf.some(has)) fgs.push(`${label(service)} (${type.name}) needs one of ${type.anyOf.map((p) => `android.permission.${p}`).join(', ')}`);
    }
  }
  results.push({ name: 'foreground service types and their permissions', problems: fgs });

  return results;
}

/** Class names of the manifest's application and components, for the check that the dex has them. */
export function manifestClasses(manifest: XmlElement, packageName: string): string[] {
  const application = manifest.children.find((c) => c.name === 'application');
  if (!application) return [];
  const names = [application, ...application.children.filter((c) => COMPONENTS.includes(c.name) && c.name !== 'activity-alias')]
    .map((c) => String(attr(c, 'name') ?? ''))
    .filter((n) => n && !n.startsWith(ANDROID));
  return names.map((n) => componentClass(packageName, n));
}
