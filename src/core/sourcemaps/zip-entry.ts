/**
 * Where an entry's compressed bytes are in a zip (central directory → local header), so they can
 * be inflated with a bound on the REAL output: the sizes in zip headers are the uploader's claim,
 * and a bundle whose headers say 1000 bytes may inflate to 1 GiB. Pure byte parsing over a
 * random-access source (bytes in memory, or a file the caller reads for us) so a bundle of
 * 128 MiB is never held whole: only the central directory and one entry at a time. No ZIP64
 * (bundles are far below 4 GiB).
 */
import { BundleError } from "./bundle-manifest";

/** Random access to a zip's bytes: memory in tests, positioned file reads on the assembly thread. */
export interface ZipSource {
  readonly size: number;
  /** exactly `length` bytes from `offset` (the caller keeps within `size`) */
  read(offset: number, length: number): Uint8Array;
}

export interface RawEntry {
  /** 0 stored, 8 deflate */
  method: number;
  /** the compressed bytes (raw deflate for method 8) */
  data: Uint8Array;
  /** the decompressed size the headers claim */
  declaredSize: number;
}

/** An entry as the central directory lists it; its bytes are read on demand (entryData). */
export interface EntryRef {
  name: string;
  method: number;
  compressedSize: number;
  declaredSize: number;
  /** where its local header starts */
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
// The end record is 22 bytes plus a comment of at most 65,535.
const EOCD_SEARCH = 22 + 65_535;

export function bytesSource(bytes: Uint8Array): ZipSource {
  return { size: bytes.length, read: (offset, length) => bytes.subarray(offset, offset + length) };
}

/** The same source seen from `base` on (a zip behind sentry-cli's 8-byte SYSB header). */
export function offsetSource(src: ZipSource, base: number): ZipSource {
  return { size: Math.max(0, src.size - base), read: (offset, length) => src.read(base + offset, length) };
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Every entry, by name, located through the central directory (local headers checked). */
export function listEntries(src: ZipSource): Map<string, EntryRef> {
  const tailStart = Math.max(0, src.size - EOCD_SEARCH);
  const tail = src.read(tailStart, src.size - tailStart);
  const end = findEocd(view(tail));
  const tv = view(tail);
  const count = tv.getUint16(end + 10, true);
  const cdSize = tv.getUint32(end + 12, true);
  const cdOffset = tv.getUint32(end + 16, true);
  if (cdOffset + cdSize > src.size) throw new BundleError("The zip's central directory is damaged.");
  const cd = src.read(cdOffset, cdSize);
  const v = view(cd);
  const out = new Map<string, EntryRef>();
  const decoder = new TextDecoder();
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > cd.length || v.getUint32(at, true) !== CENTRAL) throw new BundleError("The zip's central directory is damaged.");
    const nameLen = v.getUint16(at + 28, true);
    const entry: EntryRef = {
      name: decoder.decode(cd.subarray(at + 46, at + 46 + nameLen)),
      method: v.getUint16(at + 10, true),
      compressedSize: v.getUint32(at + 20, true),
      declaredSize: v.getUint32(at + 24, true),
      localOffset: v.getUint32(at + 42, true),
    };
    dataStart(src, entry);
    out.set(entry.name, entry);
    at += 46 + nameLen + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
  }
  return out;
}

/** Where an entry's compressed bytes start, after its local header. */
function dataStart(src: ZipSource, e: EntryRef): number {
  if (e.localOffset + 30 > src.size) throw new BundleError(`Entry "${e.name}" has no local header.`);
  const local = view(src.read(e.localOffset, 30));
  if (local.getUint32(0, true) !== LOCAL) throw new BundleError(`Entry "${e.name}" has no local header.`);
  const start = e.localOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
  if (start + e.compressedSize > src.size) throw new BundleError(`Entry "${e.name}" runs past the end of the archive.`);
  return start;
}

/** One entry's compressed bytes (read now, for this entry only). */
export function entryData(src: ZipSource, e: EntryRef): RawEntry {
  const start = dataStart(src, e);
  return { method: e.method, data: src.read(start, e.compressedSize), declaredSize: e.declaredSize };
}

/** The compressed bytes of every entry, by name (small archives in memory: tests, tools). */
export function rawEntries(zip: Uint8Array): Map<string, RawEntry> {
  const src = bytesSource(zip);
  return new Map([...listEntries(src)].map(([name, e]) => [name, entryData(src, e)]));
}

function findEocd(v: DataView): number {
  for (let i = v.byteLength - 22; i >= 0; i--) {
    if (v.getUint32(i, true) === EOCD) return i;
  }
  throw new BundleError("The bundle is not a readable zip archive (no end of central directory).");
}
