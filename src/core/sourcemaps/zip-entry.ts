/**
 * Where an entry's compressed bytes are in a zip (central directory → local header), so they can
 * be inflated with a bound on the REAL output: the sizes in zip headers are the uploader's claim,
 * and a bundle whose headers say 1000 bytes may inflate to 1 GiB. Pure byte parsing; no ZIP64
 * (bundles are far below 4 GiB).
 */
import { BundleError } from "./bundle-manifest";

export interface RawEntry {
  /** 0 stored, 8 deflate */
  method: number;
  /** the compressed bytes (raw deflate for method 8) */
  data: Uint8Array;
  /** the decompressed size the headers claim */
  declaredSize: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The compressed bytes of every entry, by name, located through the central directory. */
export function rawEntries(zip: Uint8Array): Map<string, RawEntry> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = findEocd(view);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const out = new Map<string, RawEntry>();
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== CENTRAL) throw new BundleError("The zip's central directory is damaged.");
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const declaredSize = view.getUint32(at + 24, true);
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLen));
    if (local + 30 > zip.length || view.getUint32(local, true) !== LOCAL) throw new BundleError(`Entry "${name}" has no local header.`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + compressed > zip.length) throw new BundleError(`Entry "${name}" runs past the end of the archive.`);
    out.set(name, { method, data: zip.subarray(start, start + compressed), declaredSize });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function findEocd(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535.
  const last = view.byteLength - 22;
  for (let i = last; i >= 0 && i >= last - 65_535; i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw new BundleError("The bundle is not a readable zip archive (no end of central directory).");
}
