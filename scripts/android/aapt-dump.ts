/** Parsers of `aapt dump badging` and `aapt dump xmltree … AndroidManifest.xml`. Pure. */

export interface Badging {
  packageName: string;
  versionCode: number;
  versionName: string;
  minSdk: number;
  targetSdk: number;
  permissions: string[];
  launchableActivity: string | undefined;
}

export function parseBadging(text: string): Badging {
  const quoted = (line: string | undefined, key: string): string | undefined => line?.match(new RegExp(`${key}='([^']*)'`))?.[1];
  const lines = text.split('\n');
  const pkg = lines.find((l) => l.startsWith('package:'));
  const value = (prefix: string): string | undefined => lines.find((l) => l.startsWith(prefix))?.slice(prefix.length).replace(/^'|'$/g, '');
  return {
    packageName: quoted(pkg, 'name') ?? '',
    versionCode: Number(quoted(pkg, 'versionCode')),
    versionName: quoted(pkg, 'versionName') ?? '',
    minSdk: Number(value('sdkVersion:')),
    targetSdk: Number(value('targetSdkVersion:')),
    permissions: lines.filter((l) => l.startsWith('uses-permission:')).map((l) => quoted(l, 'name') ?? ''),
    launchableActivity: quoted(lines.find((l) => l.startsWith('launchable-activity:')), 'name'),
  };
}

export type XmlValue = string | number | boolean;

export interface XmlElement {
  name: string;
  /** By qualified name as aapt prints it (`android:name`, `package`). */
  attributes: Record<string, XmlValue>;
  children: XmlElement[];
}

/**
 * The compiled manifest as a tree. aapt prints each element as `E: name (line=N)` and each attribute
 * as `A: android:name(0x01010003)="text" (Raw: …)`, `=(type 0x12)0xffffffff` (a boolean),
 * `=(type 0x10)0x1a` (an integer) or `=@0x7f040000` (a resource reference), indented by depth.
 */
export function parseXmlTree(text: string): XmlElement {
  const root: XmlElement = { name: '#document', attributes: {}, children: [] };
  const stack: Array<{ depth: number; element: XmlElement }> = [{ depth: -1, element: root }];
  for (const line of text.split('\n')) {
    const m = /^( *)(E|A): (.*)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length;
    const body = m[3]!;
    if (m[2] === 'E') {
      while (stack.length > 1 && stack[stack.length - 1]!.depth >= depth) stack.pop();
      const element: XmlElement = { name: body.replace(/ \(line=\d+\)$/, ''), attributes: {}, children: [] };
      stack[stack.length - 1]!.element.children.push(element);
      stack.push({ depth, element });
      continue;
    }
    const attribute = /^([^=(]+)(?:\(0x[0-9a-f]+\))?=(.*)$/.exec(body);
    if (!attribute) continue;
    stack[stack.length - 1]!.element.attributes[attribute[1]!] = xmlValue(attribute[2]!);
  }
  const manifest = root.children.find((e) => e.name === 'manifest');
  if (!manifest) throw new Error('aapt dump xmltree printed no <manifest> element');
  return manifest;
}

function xmlValue(raw: string): XmlValue {
  const text = /^"(.*)" \(Raw: /.exec(raw) ?? /^"(.*)"$/.exec(raw);
  if (text) return text[1]!;
  const typed = /^\(type 0x([0-9a-f]+)\)0x([0-9a-f]+)/.exec(raw);
  if (typed) {
    const type = parseInt(typed[1]!, 16);
    const value = parseInt(typed[2]!, 16);
    // 0x12 is TYPE_INT_BOOLEAN; 0x10 and 0x11 are decimal and hexadecimal integers.
    return type === 0x12 ? value !== 0 : value;
  }
  return raw;
}

/** Every element below `element` (depth first) with this name. */
export function findAll(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    for (const child of e.children) {
      if (child.name === name) found.push(child);
      walk(child);
    }
  };
  walk(element);
  return found;
}
