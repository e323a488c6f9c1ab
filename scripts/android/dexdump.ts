/**
 * Reads the text of `dexdump -d` (the disassembly of the APK's classes.dex) into what the static
 * checks need: each class with its superclass, interfaces and members, and every method, field and
 * class it refers to from its code. Pure; dexdump does the decoding of the bytecode.
 */

export interface DexMember {
  name: string;
  descriptor: string;
}

export interface DexReference {
  kind: 'method' | 'field' | 'class';
  /** Internal name (`android/app/Activity`), or an array descriptor (`[I`). */
  owner: string;
  /** Method or field name; absent for a class reference. */
  name?: string;
  /** Method descriptor or field type; absent for a class reference. */
  descriptor?: string;
  /** The instruction that makes it (`invoke-virtual`), or `catch`. */
  via: string;
}

export interface DexClass {
  name: string;
  /** Access flags (0x0200 = interface), as in a class file. */
  access: number;
  superName: string | undefined;
  interfaces: string[];
  fields: DexMember[];
  methods: DexMember[];
  references: DexReference[];
  /** How many invoke-custom instructions (lambdas, method references) its code holds. */
  invokeCustom: number;
}

/** `Lfoo/Bar;` -> `foo/Bar`; array descriptors are kept as they are. */
export const internalName = (descriptor: string): string => (descriptor.startsWith('L') && descriptor.endsWith(';') ? descriptor.slice(1, -1) : descriptor);

const TYPE = String.raw`(\[*L[^;\s]+;|\[+[BCDFIJSZ])`;
const MEMBER_REF = new RegExp(String.raw`, ${TYPE}\.([^:\s]+):(\S+) // (method|field)@`);
const TYPE_REF = new RegExp(String.raw`, ${TYPE} // type@`);
const INSTRUCTION = /\|[0-9a-f]{4}: ([a-z0-9/-]+)/;
const CATCH = /^\s+(L[^;\s]+;) -> 0x[0-9a-f]+$/;

export function parseDexdump(text: string): DexClass[] {
  const classes: DexClass[] = [];
  let current: DexClass | undefined;
  let section: 'interfaces' | 'fields' | 'methods' | 'other' = 'other';
  let pendingName: string | undefined;

  for (const line of text.split('\n')) {
    const descriptor = /^ {2}Class descriptor\s+: '(.+)'$/.exec(line);
    if (descriptor) {
      current = { name: internalName(descriptor[1]!), access: 0, superName: undefined, interfaces: [], fields: [], methods: [], references: [], invokeCustom: 0 };
      classes.push(current);
      section = 'other';
      continue;
    }
    if (!current) continue;

    const instruction = INSTRUCTION.exec(line);
    if (instruction) {
      const op = instruction[1]!;
      if (op.startsWith('invoke-custom')) {
        current.invokeCustom++;
        continue;
      }
      // MethodHandle.invoke and invokeExact are signature-polymorphic: no descriptor to look up.
      if (op.startsWith('invoke-polymorphic')) continue;
      const member = MEMBER_REF.exec(line);
      if (member) {
        current.references.push({ kind: member[4] === 'method' ? 'method' : 'field', owner: internalName(member[1]!), name: member[2]!, descriptor: member[3]!, via: op });
        continue;
      }
      const type = TYPE_REF.exec(line);
      if (type) current.references.push({ kind: 'class', owner: internalName(type[1]!), via: op });
      continue;
    }

    const access = /^ {2}Access flags\s+: (0x[0-9a-f]+)/.exec(line);
    if (access) {
      current.access = Number(access[1]);
      continue;
    }
    const header = /^ {2}(Superclass|Interfaces|Static fields|Instance fields|Direct methods|Virtual methods)\s+(?:: '(.+)'|-)/.exec(line);
    if (header) {
      const what = header[1]!;
      if (what === 'Superclass') current.superName = internalName(header[2]!);
      section = what === 'Interfaces' ? 'interfaces' : what.endsWith('fields') ? 'fields' : what.endsWith('methods') ? 'methods' : 'other';
      continue;
    }
    if (section === 'interfaces') {
      const itf = /^ {4}#\d+\s+: '(.+)'$/.exec(line);
      if (itf) current.interfaces.push(internalName(itf[1]!));
      else if (line.trim()) section = 'other';
      continue;
    }
    const name = /^ {6}name\s+: '(.+)'$/.exec(line);
    if (name) {
      pendingName = name[1];
      continue;
    }
    const type = /^ {6}type\s+: '(.+)'$/.exec(line);
    if (type && pendingName !== undefined) {
      (section === 'fields' ? current.fields : current.methods).push({ name: pendingName, descriptor: type[1]! });
      pendingName = undefined;
      continue;
    }
    const caught = CATCH.exec(line);
    if (caught) current.references.push({ kind: 'class', owner: internalName(caught[1]!), via: 'catch' });
  }
  return classes;
}
