import { describe, expect, it } from 'vitest';
import { ClassFormatError, decodeModifiedUtf8, readClassFile } from '../../scripts/android/classfile.js';
import { ZipArchive, ZipError } from '../../scripts/android/zip.js';
import { writeZip } from './support.js';

/** Modified UTF-8 as javac writes it: NUL as C0 80, each surrogate of a pair as three bytes. */
function modifiedUtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 1 && c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Buffer.from(bytes);
}

/**
 * A class file assembled by hand from the JVM specification (chapter 4), independent of javac:
 * `public class dev.example.Greeter extends Object implements Runnable` with a field `café` that
 * has a ConstantValue attribute, a Long constant (two pool slots) and a method `run()V` with code.
 */
function greeterClass(): Buffer {
  const pool: Buffer[] = [];
  let slots = 1;
  const add = (entry: Buffer, width = 1): number => {
    pool.push(entry);
    const index = slots;
    slots += width;
    return index;
  };
  const u2 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);
  const u4 = (n: number): Buffer => Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
  const utf8 = (s: string): number => {
    const b = modifiedUtf8(s);
    return add(Buffer.concat([Buffer.from([1]), u2(b.length), b]));
  };
  const cls = (name: string): number => add(Buffer.concat([Buffer.from([7]), u2(utf8(name))]));
  const self = cls('dev/example/Greeter');
  const object = cls('java/lang/Object');
  const runnable = cls('java/lang/Runnable');
  add(Buffer.concat([Buffer.from([5]), u4(0), u4(42)]), 2); // a Long takes two slots
  const text = utf8('nul:\u0000 smile:\u{1F600}');
  const fieldName = utf8('café');
  const fieldType = utf8('Ljava/lang/String;');
  const constantValue = utf8('ConstantValue');
  const str = add(Buffer.concat([Buffer.from([8]), u2(text)]));
  const runName = utf8('run');
  const runType = utf8('()V');
  const code = utf8('Code');
  const codeBody = Buffer.concat([u2(1), u2(1), u4(1), Buffer.from([0xb1]), u2(0), u2(0)]); // return
  return Buffer.concat([
    u4(0xcafebabe), u2(0), u2(52), u2(slots), ...pool,
    u2(0x0021), u2(self), u2(object), u2(1), u2(runnable),
    u2(1), u2(0x0019), u2(fieldName), u2(fieldType), u2(1), u2(constantValue), u4(2), u2(str),
    u2(1), u2(0x0001), u2(runName), u2(runType), u2(1), u2(code), u4(codeBody.length), codeBody,
    u2(0),
  ]);
}

describe('class file reader', () => {
  it('reads the name, superclass, interfaces, fields and methods of a class file', () => {
    const file = readClassFile(greeterClass());
    expect(file.name).toBe('dev/example/Greeter');
    expect(file.superName).toBe('java/lang/Object');
    expect(file.interfaces).toEqual(['java/lang/Runnable']);
    expect(file.fields).toEqual([{ name: 'café', descriptor: 'Ljava/lang/String;', access: 0x0019 }]);
    expect(file.methods).toEqual([{ name: 'run', descriptor: '()V', access: 0x0001 }]);
  });

  it('decodes modified UTF-8: NUL as two bytes, supplementary characters as surrogate pairs', () => {
    expect(decodeModifiedUtf8(modifiedUtf8('nul:\u0000 smile:\u{1F600} é'))).toBe('nul:\u0000 smile:\u{1F600} é');
  });

  it('refuses what is not a class file, and a truncated one, with a clear error', () => {
    expect(() => readClassFile(Buffer.from('PK\u0003\u0004 not a class'))).toThrow(/bad magic/);
    const whole = greeterClass();
    expect(() => readClassFile(whole.subarray(0, whole.length - 20))).toThrow(ClassFormatError);
  });
});

describe('zip reader', () => {
  it('lists entries with their method and where their data begins, and reads stored and deflated ones', () => {
    const arsc = Buffer.alloc(64, 7);
    const manifest = Buffer.from('<manifest/>'.repeat(20));
    const zip = new ZipArchive(writeZip([{ name: 'AndroidManifest.xml', data: manifest, deflate: true }, { name: 'resources.arsc', data: arsc, pad: 3 }]));
    expect([...zip.entries.keys()]).toEqual(['AndroidManifest.xml', 'resources.arsc']);
    const entry = zip.entries.get('resources.arsc')!;
    expect(entry.method).toBe(0);
    expect(entry.size).toBe(64);
    expect(zip.read('resources.arsc')).toEqual(arsc);
    expect(zip.entries.get('AndroidManifest.xml')!.method).toBe(8);
    expect(zip.read('AndroidManifest.xml')).toEqual(manifest);
    expect(zip.read('classes.dex')).toBeUndefined();
    // The data offset counts the local header's own extra field (which zipalign uses for padding).
    const firstLength = 30 + 'AndroidManifest.xml'.length + zip.entries.get('AndroidManifest.xml')!.compressedSize;
    expect(entry.dataOffset).toBe(firstLength + 30 + 'resources.arsc'.length + 3);
  });

  it('refuses a file that is not a zip archive', () => {
    expect(() => new ZipArchive(Buffer.alloc(100))).toThrow(ZipError);
  });
});
