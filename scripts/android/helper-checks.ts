import { findAll, type XmlElement } from './aapt-dump.js';
import type { DexClass, DexInstruction, DexMethodCode } from './dexdump.js';
import { componentClass, type CheckResult } from './manifest-checks.js';

/**
 * The audio helper (the shell, uid 2000, under app_process) reaches the app over Binder, as
 * Shizuku does: it calls the app's HelperProvider through ActivityManager's
 * getContentProviderExternal and IContentProvider.call with a Bundle holding its IBinder; frames then
 * go over a socketpair whose end travels as a ParcelFileDescriptor. These checks hold the APK to that
 * design: no local (abstract-namespace) socket anywhere, the provider declared exported only to
 * holders of a signature permission, and its `call` refusing every uid but the shell's before it
 * does anything else.
 */

export const HELPER_PROVIDER = 'dev.voicegateway.app.helper.HelperProvider';
export const HELPER_AUTHORITY = 'dev.voicegateway.app.audio-helper';
/** Signature|privileged: the shell holds it, no app from a store can; Shizuku's provider uses the same. */
export const HELPER_PROVIDER_PERMISSION = 'android.permission.INTERACT_ACROSS_USERS_FULL';

const LOCAL_SOCKET_CLASSES = ['android/net/LocalServerSocket', 'android/net/LocalSocket', 'android/net/LocalSocketAddress', 'android/net/LocalSocketAddress$Namespace'];
const dotted = (name: string): string => name.replace(/\//g, '.');

/** No class uses android.net.LocalServerSocket, LocalSocket or LocalSocketAddress (abstract or not). */
export function checkNoLocalSockets(classes: readonly DexClass[]): CheckResult {
  const problems: string[] = [];
  for (const cls of classes) {
    const owners = new Set([cls.superName, ...cls.interfaces, ...cls.references.map((r) => r.owner.replace(/^\[+L|;$/g, ''))]);
    const used = LOCAL_SOCKET_CLASSES.filter((c) => owners.has(c));
    if (used.length) problems.push(`${dotted(cls.name)} uses ${used.map(dotted).join(', ')}: the app↔helper channel is Binder (HelperProvider.call and a socketpair passed as a ParcelFileDescriptor), never a local socket`);
  }
  return { name: 'no LocalServerSocket, LocalSocket or LocalSocketAddress in the dex (the helper channel is Binder)', problems };
}

const attr = (e: XmlElement, name: string): string | number | boolean | undefined => e.attributes[`android:${name}`];

/** The provider is declared with its authority, exported, guarded by exactly the permission, and nothing loosens it. */
export function checkHelperProviderManifest(manifest: XmlElement, packageName: string): CheckResult {
  const name = 'HelperProvider declared: authority, exported only to INTERACT_ACROSS_USERS_FULL holders';
  const providers = findAll(manifest, 'provider').filter((p) => componentClass(packageName, String(attr(p, 'name') ?? '')) === HELPER_PROVIDER);
  if (providers.length !== 1) return { name, problems: [providers.length ? `${HELPER_PROVIDER} is declared ${providers.length} times` : `no <provider> ${HELPER_PROVIDER} in the manifest`] };
  const provider = providers[0]!;
  const problems: string[] = [];
  const label = `provider ${String(attr(provider, 'name'))}`;
  if (attr(provider, 'authorities') !== HELPER_AUTHORITY) problems.push(`${label} has authorities ${JSON.stringify(attr(provider, 'authorities'))}, expected ${HELPER_AUTHORITY}`);
  if (attr(provider, 'exported') !== true) problems.push(`${label} must be exported: the shell calls it from outside the app`);
  if (attr(provider, 'permission') !== HELPER_PROVIDER_PERMISSION) problems.push(`${label} must be protected by android:permission="${HELPER_PROVIDER_PERMISSION}" (got ${JSON.stringify(attr(provider, 'permission') ?? null)})`);
  // A read or write permission replaces android:permission for that direction; URI grants bypass it.
  for (const loosening of ['readPermission', 'writePermission']) {
    if (attr(provider, loosening) !== undefined) problems.push(`${label} sets android:${loosening}, which would replace its permission`);
  }
  if (attr(provider, 'grantUriPermissions') === true) problems.push(`${label} sets android:grantUriPermissions, which would let a URI grant bypass its permission`);
  for (const child of provider.children) {
    if (['path-permission', 'grant-uri-permission', 'intent-filter'].includes(child.name)) problems.push(`${label} has a <${child.name}>, which would loosen or widen it`);
  }
  return { name, problems };
}

const CALL = '(Ljava/lang/String;Ljava/lang/String;Landroid/os/Bundle;)Landroid/os/Bundle;';
/** ContentProvider.call with an authority (API 29): the same entry, routed to the 3-argument one by default. */
const CALL_WITH_AUTHORITY = '(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Landroid/os/Bundle;)Landroid/os/Bundle;';
/** ContentProvider's methods a caller across the Binder can reach (its Transport's entry points). */
const ENTRY_POINTS = ['query', 'insert', 'bulkInsert', 'update', 'delete', 'getType', 'getTypeAnonymous', 'getStreamTypes', 'openFile', 'openAssetFile', 'openTypedAssetFile', 'applyBatch', 'canonicalize', 'uncanonicalize', 'refresh', 'checkUriPermission'];

const CALLING_UID = 'android/os/Binder.getCallingUid()I';
const REQUIRE_SHELL = 'dev/voicegateway/core/helper/PeerPolicy.requireShell(I)V';
const signature = (insn: DexInstruction): string | undefined =>
  insn.reference?.kind === 'method' ? `${insn.reference.owner}.${insn.reference.name}${insn.reference.descriptor}` : undefined;

/**
 * The method starts with `invoke-static Binder.getCallingUid()`, its result moved to a register and
 * passed to `invoke-static PeerPolicy.requireShell(I)V`, with no branch, return or other invoke before.
 */
export function startsWithShellGuard(method: DexMethodCode): string | undefined {
  const code = method.instructions;
  const first = code.findIndex((i) => i.op.startsWith('invoke') || /^(if-|goto|return|throw|packed-switch|sparse-switch)/.test(i.op));
  if (first < 0 || signature(code[first]!) !== CALLING_UID || code[first]!.op !== 'invoke-static') return 'does not begin with Binder.getCallingUid()';
  const result = code[first + 1];
  const uid = result?.op === 'move-result' ? /v\d+/.exec(result.operands)?.[0] : undefined;
  if (!uid) return 'does not keep the result of Binder.getCallingUid()';
  for (let i = first + 2; i < code.length; i++) {
    const insn = code[i]!;
    if (insn.op.startsWith('invoke')) {
      const args = /^\{([^}]*)\}/.exec(insn.operands)?.[1]?.trim();
      if (signature(insn) === REQUIRE_SHELL && insn.op === 'invoke-static' && args === uid) return undefined;
      return 'calls something else before PeerPolicy.requireShell(Binder.getCallingUid())';
    }
    if (/^(if-|goto|return|throw|packed-switch|sparse-switch)/.test(insn.op)) return 'branches or returns before PeerPolicy.requireShell(Binder.getCallingUid())';
    if (new RegExp(`^${uid}\\b`).test(insn.operands)) return 'overwrites the calling uid before PeerPolicy.requireShell';
  }
  return 'never calls PeerPolicy.requireShell(Binder.getCallingUid())';
}

/** The method does nothing with its arguments: constants and return, or a thrown java.lang exception. */
function doesNothing(method: DexMethodCode): boolean {
  return method.instructions.every((insn) => {
    if (/^(const|return|throw|move-result)/.test(insn.op) || insn.op === 'nop') return true;
    const owner = insn.reference?.owner ?? '';
    if (insn.op === 'new-instance') return owner.startsWith('java/lang/');
    if (insn.op === 'invoke-direct') return owner.startsWith('java/lang/') && insn.reference?.name === '<init>';
    return false;
  });
}

/** HelperProvider is in the dex, a ContentProvider; call refuses all but the shell first; its other entry points do nothing. */
export function checkHelperProviderCode(classes: readonly DexClass[]): CheckResult {
  const name = 'HelperProvider.call rejects every uid but the shell before anything else';
  const internal = HELPER_PROVIDER.replace(/\./g, '/');
  const provider = classes.find((c) => c.name === internal);
  if (!provider) return { name, problems: [`${HELPER_PROVIDER} is not in the dex`] };
  const problems: string[] = [];
  const own = new Map(classes.map((c) => [c.name, c]));
  let ancestor: string | undefined = provider.superName;
  while (ancestor && own.has(ancestor)) ancestor = own.get(ancestor)!.superName;
  if (ancestor !== 'android/content/ContentProvider') problems.push(`${HELPER_PROVIDER} does not extend android.content.ContentProvider`);
  const code = provider.code ?? [];
  const calls = code.filter((m) => m.name === 'call' && (m.descriptor === CALL || m.descriptor === CALL_WITH_AUTHORITY));
  if (!calls.some((m) => m.descriptor === CALL)) problems.push(`${HELPER_PROVIDER} does not override call(String, String, Bundle)`);
  for (const method of calls) {
    const problem = method.instructions.length ? startsWithShellGuard(method) : 'has no code';
    if (problem) problems.push(`${HELPER_PROVIDER}.call${method.descriptor} ${problem}`);
  }
  for (const method of code.filter((m) => ENTRY_POINTS.includes(m.name) && m.instructions.length)) {
    if (!doesNothing(method) && startsWithShellGuard(method)) {
      problems.push(`${HELPER_PROVIDER}.${method.name}${method.descriptor} does something with the caller's data: return null or 0, or call PeerPolicy.requireShell(Binder.getCallingUid()) first`);
    }
  }
  return { name, problems };
}
