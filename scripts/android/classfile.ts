/**
 * A small, pure reader of Java class files (JVM spec chapter 4): the class's name, its superclass
 * and interfaces, and the names and descriptors of its fields and methods. Enough to tell whether a
 * member exists in android.jar; code and attributes are skipped.
 */

export interface MemberInfo {
  name: string;
  descriptor: string;
  access: number;
}

export interface ClassFile {
  /** Internal form: `android/app/Activity`. */
  name: string;
  superName: string | undefined;
  interfaces: string[];
  access: number;
  fields: MemberInfo[];
  methods: MemberInfo[];
}

export const ACC_INTERFACE = 0x0200;

export class ClassFormatError extends Error {}

type Constant = { tag: number; text?: string; index?: number };

/** Class files store strings in "modified UTF-8" (NUL as C0 80, supplementary characters as surrogate pairs). */
export function decodeModifiedUtf8(bytes: Uint8Array): string {
  const units: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const a = bytes[i]!;
    if (a < 0x80) {
      units.push(a);
      i += 1;
    } else if ((a & 0xe0) === 0xc0) {
      units.push(((a & 0x1f) << 6) | (bytes[i + 1]! & 0x3f));
      i += 2;
    } else {
      units.push(((a & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f));
      i += 3;
    }
  }
  let out = '';
  for (let i = 0; i < units.length; i += 4096) out += String.fromCharCode(...units.slice(i, i + 4096));
  return out;
}

export function readClassFile(data: Uint8Array): ClassFile {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const need = (n: number): void => {
    if (at + n > data.length) throw new ClassFormatError(`truncated class file (at byte ${at})`);
  };
  const u1 = (): number => (need(1), view.getUint8(at++));
  const u2 = (): number => {
    need(2);
    const v = view.getUint16(at);
    at += 2;
    return v;
  };
  const u4 = (): number => {
    need(4);
    const v = view.getUint32(at);
    at += 4;
    return v;
  };

  if (u4() !== 0xcafebabe) throw new ClassFormatError('not a class file (bad magic)');
  u2(); // minor version
  u2(); // major version
  const count = u2();
  const pool: Array<Constant | undefined> = new Array(count);
  for (let i = 1; i < count; i++) {
    const tag = u1();
    switch (tag) {
      case 1: {
        const length = u2();
        need(length);
        pool[i] = { tag, text: decodeModifiedUtf8(data.subarray(at, at + length)) };
        at += length;
        break;
      }
      case 7: // Class
      case 8: // String
      case 16: // MethodType
      case 19: // Module
      case 20: // Package
        pool[i] = { tag, index: u2() };
        break;
      case 15: // MethodHandle
        need(3);
        at += 3;
        pool[i] = { tag };
        break;
      case 3: // Integer
      case 4: // Float
      case 9: // Fieldref
      case 10: // Methodref
      case 11: // InterfaceMethodref
      case 12: // NameAndType
      case 17: // Dynamic
      case 18: // InvokeDynamic
        need(4);
        at += 4;
        pool[i] = { tag };
        break;
      case 5: // Long
      case 6: // Double: these take two slots
        need(8);
        at += 8;
        pool[i] = { tag };
        i++;
        break;
      default:
        throw new ClassFormatError(`unknown constant pool tag ${tag} at entry ${i}`);
    }
  }
  const utf8 = (index: number): string => {
    const c = pool[index];
    if (c?.tag !== 1 || c.text === undefined) throw new ClassFormatError(`constant ${index} is not a UTF-8 string`);
    return c.text;
  };
  const className = (index: number): string => {
    const c = pool[index];
    if (c?.tag !== 7 || c.index === undefined) throw new ClassFormatError(`constant ${index} is not a class`);
    return utf8(c.index);
  };

  const access = u2();
  const name = className(u2());
  const superIndex = u2();
  const interfaces = Array.from({ length: u2() }, () => className(u2()));
  const members = (): MemberInfo[] =>
    Array.from({ length: u2() }, () => {
      const memberAccess = u2();
      const member = { access: memberAccess, name: utf8(u2()), descriptor: utf8(u2()) };
      for (let n = u2(); n > 0; n--) {
        u2();
        const length = u4();
        need(length);
        at += length;
      }
      return member;
    });
  const fields = members();
  const methods = members();
  return { name, superName: superIndex === 0 ? undefined : className(superIndex), interfaces, access, fields, methods };
}
