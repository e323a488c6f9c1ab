import { inflateRawSync } from 'node:zlib';

/** One entry of a zip archive's central directory (an APK or a jar). */
export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflated. */
  method: number;
  compressedSize: number;
  size: number;
  /** Where the entry's data begins in the file (after its local header). */
  dataOffset: number;
}

export class ZipError extends Error {}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * A small reader for the zip archives the build makes and reads (no zip64, no encryption, which
 * APKs and android.jar never use). Pure: takes the whole file.
 */
export class ZipArchive {
  readonly entries: ReadonlyMap<string, ZipEntry>;

  constructor(private readonly data: Buffer) {
    this.entries = readCentralDirectory(data);
  }

  /** The entry's uncompressed bytes, or undefined when there is no such entry. */
  read(name: string): Buffer | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    const raw = this.data.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    if (entry.method === 0) return raw;
    if (entry.method === 8) return inflateRawSync(raw);
    throw new ZipError(`${name}: compression method ${entry.method} is not supported`);
  }
}

function readCentralDirectory(data: Buffer): Map<string, ZipEntry> {
  // The end record is in the last 22 + 65535 bytes (its comment is at most 65535 long).
  let end = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (data.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ZipError('not a zip archive (no end of central directory)');
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  const entries = new Map<string, ZipEntry>();
  for (let n = 0; n < count; n++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL) throw new ZipError(`damaged central directory at entry ${n}`);
    const method = data.readUInt16LE(at + 10);
    const compressedSize = data.readUInt32LE(at + 20);
    const size = data.readUInt32LE(at + 24);
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const commentLength = data.readUInt16LE(at + 32);
    const local = data.readUInt32LE(at + 42);
    const name = data.toString('utf8', at + 46, at + 46 + nameLength);
    if (local + 30 > data.length || data.readUInt32LE(local) !== LOCAL) throw new ZipError(`${name}: damaged local header`);
    // The local header has its own name and extra field lengths (zipalign pads the extra field).
    const dataOffset = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    entries.set(name, { name, method, compressedSize, size, dataOffset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
