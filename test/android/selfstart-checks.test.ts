import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findAll, parseXmlTree, type XmlElement } from '../../scripts/android/aapt-dump.js';
import type { DexClass, DexReference } from '../../scripts/android/dexdump.js';
import { checkSelfStartCode, checkSelfStartManifest, PAIRING_CODE_RECEIVER, WRITE_SECURE_SETTINGS } from '../../scripts/android/selfstart-checks.js';

// The checks of apk.test.ts for issue 24, held to failing inputs: the manifest fixture is the app as
// built on 2026-11-22, before self-start existed.
const here = path.dirname(fileURLToPath(import.meta.url));
const before = (): XmlElement => parseXmlTree(readFileSync(path.join(here, 'fixtures', 'manifest.xmltree.txt'), 'utf8'));
const application = (m: XmlElement): XmlElement => findAll(m, 'application')[0]!;

function withSelfStart(exported: boolean, filter = false): XmlElement {
  const m = before();
  m.children.unshift({ name: 'uses-permission', attributes: { 'android:name': WRITE_SECURE_SETTINGS }, children: [] });
  const children: XmlElement[] = filter ? [{ name: 'intent-filter', attributes: {}, children: [{ name: 'action', attributes: { 'android:name': 'x.y' }, children: [] }] }] : [];
  application(m).children.push({ name: 'receiver', attributes: { 'android:name': '.adb.PairingCodeReceiver', 'android:exported': exported }, children });
  return m;
}

const method = (owner: string, name: string, descriptor: string): DexReference => ({ kind: 'method', owner, name, descriptor, via: 'invoke-virtual' }) as DexReference;
const ALL_CALLS: DexReference[] = [
  method('android/net/nsd/NsdManager', 'discoverServices', '(Ljava/lang/String;ILandroid/net/nsd/NsdManager$DiscoveryListener;)V'),
  method('android/net/nsd/NsdManager', 'resolveService', '(Landroid/net/nsd/NsdServiceInfo;Landroid/net/nsd/NsdManager$ResolveListener;)V'),
  method('android/app/RemoteInput$Builder', '<init>', '(Ljava/lang/String;)V'),
  method('android/app/Notification$Action$Builder', 'addRemoteInput', '(Landroid/app/RemoteInput;)Landroid/app/Notification$Action$Builder;'),
  method('android/app/RemoteInput', 'getResultsFromIntent', '(Landroid/content/Intent;)Landroid/os/Bundle;'),
  method('android/provider/Settings$Global', 'putInt', '(Landroid/content/ContentResolver;Ljava/lang/String;I)Z'),
];
const receiverClass = (superName: string, references: DexReference[]): DexClass => ({
  name: PAIRING_CODE_RECEIVER.replace(/\./g, '/'),
  access: 0x11,
  superName,
  interfaces: [],
  fields: [],
  methods: [{ name: 'onReceive', descriptor: '(Landroid/content/Context;Landroid/content/Intent;)V' }],
  references,
  invokeCustom: 0,
});

describe('self-start APK checks (issue 24)', () => {
  it('name the missing permission and receiver in an app without self-start', () => {
    const problems = checkSelfStartManifest(before(), 'dev.voicegateway.app').problems.join('\n');
    expect(problems).toContain('WRITE_SECURE_SETTINGS is not declared');
    expect(problems).toContain('PairingCodeReceiver is declared 0 times');
  });

  it('pass the declared permission and a private receiver, and refuse an exported or filtered one', () => {
    expect(checkSelfStartManifest(withSelfStart(false), 'dev.voicegateway.app').problems).toEqual([]);
    expect(checkSelfStartManifest(withSelfStart(true), 'dev.voicegateway.app').problems.join('\n')).toContain('must set android:exported="false"');
    expect(checkSelfStartManifest(withSelfStart(false, true), 'dev.voicegateway.app').problems.join('\n')).toContain('has an intent filter');
  });

  it('refuse a boot receiver that runs before the first unlock', () => {
    const m = withSelfStart(false);
    const boot = findAll(m, 'receiver').find((r) => r.attributes['android:name'] === '.service.BootReceiver')!;
    boot.attributes['android:directBootAware'] = true;
    expect(checkSelfStartManifest(m, 'dev.voicegateway.app').problems.join('\n')).toContain('credential-protected storage');
  });

  it('name each platform call the flow rests on when it is missing', () => {
    expect(checkSelfStartCode([receiverClass('android/content/BroadcastReceiver', ALL_CALLS)]).problems).toEqual([]);
    const withoutReply = checkSelfStartCode([receiverClass('android/content/BroadcastReceiver', ALL_CALLS.filter((r) => r.name !== 'getResultsFromIntent'))]).problems;
    expect(withoutReply).toEqual([expect.stringContaining('RemoteInput.getResultsFromIntent')]);
    expect(checkSelfStartCode([receiverClass('java/lang/Object', ALL_CALLS)]).problems.join('\n')).toContain('not android.content.BroadcastReceiver');
    expect(checkSelfStartCode([]).problems.join('\n')).toContain('is not in the dex');
  });
});
