/**
 * Opens an artifact bundle in memory (reference §8.4): an optional 8-byte `SYSB` + u32 version
 * header, then a ZIP whose offsets count from the start of the file. Entries are read one at a
 * time with fflate, by manifest key — never extracted to a filesystem, never trusted by name.
 * Declared sizes are checked before anything is inflated (fflate inflates into a buffer of the
 * declared size, so a lying entry cannot grow past it).
 */
import { unzipSync } from "fflate";
import { BundleError, type BundleManifest, parseBundleManifest } from "./bundle-manifest";

export interface BundleLimits {
  /** largest decompressed entry */
  maxFileSize: number;
  /** most entries in the manifest */
  maxFiles: number;
  /** largest sum of decompressed manifest entries */
  maxTotalSize: number;
}

export interface EntryInfo {
  name: string;
  /** compressed size */
  size: number;
  /** declared decompressed size */
  originalSize: number;
  compression: number;
}

export interface OpenedBundle {
  manifest: BundleManifest;
  /** manifest entries present in the zip, in manifest order */
  entries: EntryInfo[];
  /** the decompressed bytes of one entry (by manifest key) */
  read(name: string): Uint8Array;
}

const SYSB = [0x53, 0x59, 0x53, 0x42];

function hasSysbHeader(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && SYSB.every((b, i) => bytes[i] === b);
}

function listEntries(bytes: Uint8Array): Map<string, EntryInfo> {
  const entries = new Map<string, EntryInfo>();
  unzipSync(bytes, {
    filter: (f) => {
      entries.set(f.name, { name: f.name, size: f.size, originalSize: f.originalSize, compression: f.compression });
      return false;
    },
  });
  return entries;
}

/**
 * The zip inside: as-is when offsets are absolute (both CLIs), else after the 8-byte header. With
 * the wrong base fflate may not throw but read garbage names, so "has a manifest" decides.
 */
function locateZip(bytes: Uint8Array): { zip: Uint8Array; entries: Map<string, EntryInfo> } {
  const candidates = hasSysbHeader(bytes) ? [bytes, bytes.subarray(8)] : [bytes];
  let first: { zip: Uint8Array; entries: Map<string, EntryInfo> } | undefined;
  let lastError: unknown;
  for (const zip of candidates) {
    try {
      const entries = listEntries(zip);
      if (entries.has("manifest.json")) return { zip, entries };
      first ??= { zip, entries };
    } catch (err) {
      lastError = err;
    }
  }
  if (first) return first;
  throw new BundleError(`The bundle is not a readable zip archive (${(lastError as Error)?.message ?? "unknown error"}).`);
}

function readEntry(zip: Uint8Array, info: EntryInfo): Uint8Array {
  if (info.compression !== 0 && info.compression !== 8)
    throw new BundleError(`Entry "${info.name}" uses unsupported compression method ${info.compression}.`);
  let out: Uint8Array | undefined;
  try {
    out = unzipSync(zip, { filter: (f) => f.name === info.name })[info.name];
  } catch (err) {
    throw new BundleError(`Entry "${info.name}" is corrupt (${(err as Error).message}).`);
  }
  if (!out) throw new BundleError(`Entry "${info.name}" could not be read.`);
  return out;
}

export function openBundle(bytes: Uint8Array, limits: BundleLimits): OpenedBundle {
  const { zip, entries } = locateZip(bytes);
  const manifestInfo = entries.get("manifest.json");
  if (!manifestInfo) throw new BundleError("The bundle has no manifest.json.");
  if (manifestInfo.originalSize > limits.maxFileSize) throw new BundleError("manifest.json is too large.");
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse(new TextDecoder().decode(readEntry(zip, manifestInfo)));
  } catch (err) {
    if (err instanceof BundleError) throw err;
    throw new BundleError("manifest.json is not valid JSON.");
  }
  const manifest = parseBundleManifest(manifestJson);
  if (manifest.files.length > limits.maxFiles)
    throw new BundleError(`The bundle lists ${manifest.files.length} files; at most ${limits.maxFiles} are accepted.`);

  const listed: EntryInfo[] = [];
  let total = 0;
  for (const f of manifest.files) {
    const info = entries.get(f.entry);
    if (!info) throw new BundleError(`manifest.json lists "${f.entry}", which is not in the archive.`);
    if (info.originalSize > limits.maxFileSize) {
      throw new BundleError(`"${f.entry}" is ${info.originalSize} bytes decompressed; the limit is ${limits.maxFileSize}.`);
    }
    total += info.originalSize;
    listed.push(info);
  }
  if (total > limits.maxTotalSize)
    throw new BundleError(`The bundle's files total ${total} bytes decompressed; the limit is ${limits.maxTotalSize}.`);

  return {
    manifest,
    entries: listed,
    read(name) {
      const info = entries.get(name);
      if (!info) throw new BundleError(`"${name}" is not in the archive.`);
      return readEntry(zip, info);
    },
  };
}
