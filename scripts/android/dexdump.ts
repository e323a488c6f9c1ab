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

/** One instruction of a method's code, as dexdump prints it. */
export interface DexInstruction {
  /** In 16-bit code units from the method's start. */
  offset: number;
  op: string;
  /** What follows the opcode, before dexdump's ` // ` comment: `v0, v1, 0015`, `{v2}, Lfoo;.bar:()V`. */
  operands: string;
  /** The relative branch offset dexdump prints in its comment (`// +0011`), for branches. */
  relative?: number;
  /** The method, field or class the instruction names, if any. */
  reference?: DexReference;
}

/** A try range: instructions in [start, end) may go to each handler's offset. */
export interface DexTry {
  start: number;
  end: number;
  handlers: number[];
  /** The caught classes (`<any>` is not listed). */
  types: string[];
}

export interface DexMethodCode {
  name: string;
  descriptor: string;
  instructions: DexInstruction[];
  tries: DexTry[];
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
  /** The code of each method that has some, instruction by instruction (for the flow checks). */
  code?: DexMethodCode[];
}

/** `Lfoo/Bar;` -> `foo/Bar`; array descriptors are kept as they are. */
export const internalName = (descriptor: string): string => (descriptor.startsWith('L') && descriptor.endsWith(';') ? descriptor.slice(1, -1) : descriptor);

const TYPE = String.raw`(\[*L[^;\s]+;|\[+[BCDFIJSZ])`;
const MEMBER_REF = new RegExp(String.raw`, ${TYPE}\.([^:\s]+):(\S+) // (method|field)@`);
const TYPE_REF = new RegExp(String.raw`, ${TYPE} // type@`);
const INSTRUCTION = /\|([0-9a-f]{4,8}): ([a-z0-9/-]+)(?: (.*?))?(?: \/\/ (.*))?$/;
const CATCH = /^\s+(L[^;\s]+;|<any>) -> 0x([0-9a-f]+)$/;
const TRY = /^ {8}0x([0-9a-f]+) - 0x([0-9a-f]+)$/;
/** dexdump writes a branch's relative target as `// +0011` (or `#0000fff0` for goto/32, in the operands). */
function relativeTarget(op: string, operands: string, comment: string | undefined): number | undefined {
  if (!/^(if-|goto|packed-switch|sparse-switch)/.test(op)) return undefined;
  const rel = comment ? /^([+-])([0-9a-f]+)/.exec(comment) : null;
  if (rel) return (rel[1] === '-' ? -1 : 1) * parseInt(rel[2]!, 16);
  const raw = /#([0-9a-f]{8})/.exec(operands);
  return raw ? parseInt(raw[1]!, 16) | 0 : undefined;
}

export function parseDexdump(text: string): DexClass[] {
  const classes: DexClass[] = [];
  let current: DexClass | undefined;
  let section: 'interfaces' | 'fields' | 'methods' | 'other' = 'other';
  let pendingName: string | undefined;
  let method: DexMethodCode | undefined;

  for (const line of text.split('\n')) {
    const descriptor = /^ {2}Class descriptor\s+: '(.+)'$/.exec(line);
    if (descriptor) {
      current = { name: internalName(descriptor[1]!), access: 0, superName: undefined, interfaces: [], fields: [], methods: [], references: [], invokeCustom: 0, code: [] };
      classes.push(current);
      section = 'other';
      method = undefined;
      continue;
    }
    if (!current) continue;

    const instruction = INSTRUCTION.exec(line);
    if (instruction) {
      const op = instruction[2]!;
      const operands = instruction[3] ?? '';
      const insn: DexInstruction = { offset: parseInt(instruction[1]!, 16), op, operands };
      const relative = relativeTarget(op, operands, instruction[4]);
      if (relative !== undefined) insn.relative = relative;
      method?.instructions.push(insn);
      if (op.startsWith('invoke-custom')) {
        current.invokeCustom++;
        continue;
      }
      // MethodHandle.invoke and invokeExact are signature-polymorphic: no descriptor to look up.
      if (op.startsWith('invoke-polymorphic')) continue;
      const member = MEMBER_REF.exec(line);
      const type = member ? null : TYPE_REF.exec(line);
      if (member) insn.reference = { kind: member[4] === 'method' ? 'method' : 'field', owner: internalName(member[1]!), name: member[2]!, descriptor: member[3]!, via: op };
      else if (type) insn.reference = { kind: 'class', owner: internalName(type[1]!), via: op };
      if (insn.reference) current.references.push(insn.reference);
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
      if (section === 'methods') {
        method = { name: pendingName, descriptor: type[1]!, instructions: [], tries: [] };
        current.code!.push(method);
      } else method = undefined;
      pendingName = undefined;
      continue;
    }
    const range = TRY.exec(line);
    if (range && method) {
      method.tries.push({ start: parseInt(range[1]!, 16), end: parseInt(range[2]!, 16), handlers: [], types: [] });
      continue;
    }
    const caught = CATCH.exec(line);
    if (caught) {
      const handler = method?.tries[method.tries.length - 1];
      handler?.handlers.push(parseInt(caught[2]!, 16));
      if (caught[1] === '<any>') continue;
      handler?.types.push(internalName(caught[1]!));
      current.references.push({ kind: 'class', owner: internalName(caught[1]!), via: 'catch' });
    }
  }
  return classes;
}
