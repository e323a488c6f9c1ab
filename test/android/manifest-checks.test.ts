import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findAll, parseBadging, parseXmlTree, type XmlElement } from '../../scripts/android/aapt-dump.js';
import { checkHelperProviderManifest } from '../../scripts/android/helper-checks.js';
import { checkManifest, componentClass, manifestClasses } from '../../scripts/android/manifest-checks.js';

// aapt's dumps of the app's manifest as it was built on 2026-11-22 (the parser's test vectors; the
// built APK itself is checked in apk.test.ts).
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => readFileSync(path.join(here, 'fixtures', name), 'utf8');
// The fixture's own permissions, read from the manifest tree (the app's list is kept in apk.test.ts).
const PERMISSIONS = findAll(parseXmlTree(fixture('manifest.xmltree.txt')), 'uses-permission').map((e) => String(e.attributes['android:name']));
const EXPECTED = { packageName: 'dev.voicegateway.app', minSdk: 26, targetSdk: 34, permissions: PERMISSIONS };

const load = () => ({ manifest: parseXmlTree(fixture('manifest.xmltree.txt')), badging: parseBadging(fixture('badging.txt')) });
const component = (manifest: XmlElement, name: string): XmlElement =>
  ['activity', 'service', 'receiver'].flatMap((tag) => findAll(manifest, tag)).find((e) => e.attributes['android:name'] === name)!;
const problems = (manifest: XmlElement, badging = load().badging, expected = EXPECTED): Record<string, string[]> =>
  Object.fromEntries(checkManifest(manifest, badging, expected).map((r) => [r.name, r.problems]));
const failing = (manifest: XmlElement, badging = load().badging, expected = EXPECTED): Record<string, string[]> =>
  Object.fromEntries(Object.entries(problems(manifest, badging, expected)).filter(([, p]) => p.length > 0));

describe('aapt dump parsers', () => {
  it('reads badging: package, version, SDK levels, permissions, launcher', () => {
    const { badging } = load();
    expect(badging).toMatchObject({ packageName: 'dev.voicegateway.app', versionCode: 1000, versionName: '0.1.0', minSdk: 26, targetSdk: 34, launchableActivity: 'dev.voicegateway.app.ui.StatusActivity' });
    expect(badging.permissions).toEqual(PERMISSIONS);
    expect(PERMISSIONS).toHaveLength(11);
    expect(PERMISSIONS).toContain('android.permission.FOREGROUND_SERVICE_CONNECTED_DEVICE');
  });

  it('reads the manifest tree with typed values: strings, booleans, integers and flags', () => {
    const { manifest } = load();
    expect(manifest.attributes.package).toBe('dev.voicegateway.app');
    expect(findAll(manifest, 'uses-sdk')[0]!.attributes).toEqual({ 'android:minSdkVersion': 26, 'android:targetSdkVersion': 34 });
    const callService = component(manifest, '.telecom.CallService');
    expect(callService.attributes['android:exported']).toBe(true);
    expect(callService.attributes['android:permission']).toBe('android.permission.BIND_INCALL_SERVICE');
    expect(component(manifest, '.ui.ScanActivity').attributes['android:exported']).toBe(false);
    expect(component(manifest, '.service.GatewayService').attributes['android:foregroundServiceType']).toBe(0x10);
    expect(findAll(callService, 'action').map((a) => a.attributes['android:name'])).toEqual(['android.telecom.InCallService']);
  });

  it('resolves component names as Android does, and lists the classes the manifest names', () => {
    expect(componentClass('dev.voicegateway.app', '.ui.PairActivity')).toBe('dev.voicegateway.app.ui.PairActivity');
    expect(componentClass('dev.voicegateway.app', 'Boot')).toBe('dev.voicegateway.app.Boot');
    expect(componentClass('dev.voicegateway.app', 'org.example.Other')).toBe('org.example.Other');
    expect(manifestClasses(load().manifest, 'dev.voicegateway.app')).toContain('dev.voicegateway.app.VoiceGatewayApp');
  });
});

describe('manifest checks', () => {
  it('pass on the app\'s manifest', () => {
    const { manifest, badging } = load();
    expect(failing(manifest, badging)).toEqual({});
  });

  it('catch a permission added or dropped without changing the expected list', () => {
    const { manifest, badging } = load();
    const extra = { ...badging, permissions: [...badging.permissions, 'android.permission.READ_CONTACTS'] };
    expect(failing(manifest, extra)['exactly the expected permissions']).toEqual([
      'android.permission.READ_CONTACTS is requested but not expected (add it to the expected list if it is meant)',
    ]);
    expect(failing(manifest, badging, { ...EXPECTED, permissions: [...PERMISSIONS, 'android.permission.READ_PHONE_STATE'] })['exactly the expected permissions']).toEqual([
      'android.permission.READ_PHONE_STATE is expected but not requested',
    ]);
  });

  it('catch a component without android:exported, an InCallService without its UI meta-data, a lost dialer filter', () => {
    const { manifest, badging } = load();
    delete component(manifest, '.service.BootReceiver').attributes['android:exported'];
    const callService = component(manifest, '.telecom.CallService');
    callService.children = callService.children.filter((c) => c.attributes['android:name'] !== 'android.telecom.IN_CALL_SERVICE_UI');
    const dialer = component(manifest, '.ui.DialerActivity');
    dialer.children = dialer.children.slice(0, 1);
    expect(failing(manifest, badging)).toEqual({
      'android:exported set on every component': ['receiver .service.BootReceiver does not set android:exported'],
      'InCallService for the dialer role': ['service .telecom.CallService lacks meta-data android.telecom.IN_CALL_SERVICE_UI = true'],
      'dialer intent filters (ACTION_DIAL with and without tel:)': ['no exported activity handles ACTION_DIAL with a tel: URI (category DEFAULT)'],
    });
  });

  it('catch a deep link to another host, and a foreground service type without its permissions', () => {
    const { manifest, badging } = load();
    const data = findAll(component(manifest, '.ui.PairActivity'), 'data')[0]!;
    data.attributes['android:host'] = 'pairing';
    // phoneCall (0x4) needs FOREGROUND_SERVICE_PHONE_CALL and MANAGE_OWN_CALLS (or the dialer role).
    component(manifest, '.service.GatewayService').attributes['android:foregroundServiceType'] = 0x14;
    expect(failing(manifest, badging)).toEqual({
      'deep link voicegateway://pair': ['no exported, BROWSABLE activity opens voicegateway://pair'],
      'foreground service types and their permissions': [
        'service .service.GatewayService (phoneCall) needs android.permission.FOREGROUND_SERVICE_PHONE_CALL',
        'service .service.GatewayService (phoneCall) needs one of android.permission.MANAGE_OWN_CALLS',
      ],
    });
  });

  it('catch the wrong SDK levels and package', () => {
    const { manifest, badging } = load();
    expect(failing(manifest, { ...badging, targetSdk: 33, minSdk: 24, packageName: 'dev.other' })['package, SDK levels and launcher']).toEqual([
      'package is dev.other, expected dev.voicegateway.app',
      'targetSdkVersion is 33, expected 34',
      'minSdkVersion is 24, expected at least 26',
    ]);
  });
});

describe('HelperProvider in the manifest', () => {
  const PROVIDER = (attributes: Record<string, string | boolean>, children: XmlElement[] = []): XmlElement => ({
    name: 'provider',
    attributes: {
      'android:name': '.helper.HelperProvider',
      'android:authorities': 'dev.voicegateway.app.audio-helper',
      'android:exported': true,
      'android:permission': 'android.permission.INTERACT_ACROSS_USERS_FULL',
      ...attributes,
    },
    children,
  });
  const withProvider = (provider?: XmlElement): string[] => {
    const { manifest } = load();
    if (provider) manifest.children.find((c) => c.name === 'application')!.children.push(provider);
    return checkHelperProviderManifest(manifest, 'dev.voicegateway.app').problems;
  };

  it('passes the provider as the design declares it: exported, only to INTERACT_ACROSS_USERS_FULL holders', () => {
    expect(withProvider(PROVIDER({}))).toEqual([]);
  });

  it('fails a missing provider, one exported without the permission, and one loosened by a read permission or URI grants', () => {
    expect(withProvider()).toEqual(['no <provider> dev.voicegateway.app.helper.HelperProvider in the manifest']);
    const bare = PROVIDER({});
    delete bare.attributes['android:permission'];
    expect(withProvider(bare)).toEqual(['provider .helper.HelperProvider must be protected by android:permission="android.permission.INTERACT_ACROSS_USERS_FULL" (got null)']);
    expect(withProvider(PROVIDER({ 'android:exported': false, 'android:authorities': 'dev.voicegateway.app.helper' }))).toEqual([
      'provider .helper.HelperProvider has authorities "dev.voicegateway.app.helper", expected dev.voicegateway.app.audio-helper',
      'provider .helper.HelperProvider must be exported: the shell calls it from outside the app',
    ]);
    expect(withProvider(PROVIDER({ 'android:readPermission': 'android.permission.INTERNET', 'android:grantUriPermissions': true }, [{ name: 'path-permission', attributes: {}, children: [] }]))).toEqual([
      'provider .helper.HelperProvider sets android:readPermission, which would replace its permission',
      'provider .helper.HelperProvider sets android:grantUriPermissions, which would let a URI grant bypass its permission',
      'provider .helper.HelperProvider has a <path-permission>, which would loosen or widen it',
    ]);
  });
});
