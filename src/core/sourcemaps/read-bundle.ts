/**
 * Opens an artifact bundle (reference §8.4): an optional 8-byte `SYSB` + u32 version header, then
 * a ZIP whose offsets count from the start of the file. Entries are read one at a time through a
 * ZipSource (zip-entry.ts), by manifest key — never extracted to a filesystem, never trusted by
 * name, and a bundle on disk is never read whole.
 * Declared sizes are checked before anything is inflated, and inflating counts the real bytes and
 * stops at the limit (headers may understate: a 1 MB zip of 1 GiB of zeros claiming 1000 bytes).
 * `raw()` hands the compressed bytes out so the server can inflate them off the main thread.
 */
import { inflateRawSync } from "node:zlib";
import { BundleError, type BundleManifest, parseBundleManifest } from "./bundle-manifest";
import { bytesSource, type EntryRef, entryData, listEntries, offsetSource, type RawEntry, type ZipSource } from "./zip-entry";

export interface BundleLimits {
  /** largest decompressed entry */
  maxFileSize: number;
  /** most entries in the manifest */
  maxFiles: number;
  /** largest sum of decompressed manifest entries */
  maxTotalSize: number;
}

/**
 * A bundle within the protocol's limits whose files, decompressed, exceed a configured cap: not a
 * lying archive but one too big to accept. Carries the catalogue code the server answers with.
 */
export class BundleLimitError extends BundleError {
  constructor(
    readonly code: "bundle_entry_too_large" | "bundle_unpacked_too_large",
    message: string,
  ) {
    super(message);
    this.name = "BundleLimitError";
  }
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
  /** the decompressed bytes of one entry (by manifest key), inflated on this thread */
  read(name: string): Uint8Array;
  /** the compressed bytes of one entry and the most its inflated form may hold */
  raw(name: string): RawEntry & { name: string; maxSize: number };
}

const entryInfo = (e: EntryRef): EntryInfo => ({
  name: e.name,
  size: e.compressedSize,
  originalSize: e.declaredSize,
  compression: e.method,
});

/**
 * Checks an entry's inflated bytes against its headers' claim: more than the limit is refused
 * (callers inflate with `maxOutputLength` = limit + 1), any other mismatch means lying headers.
 */
export function checkInflated(entry: { name: string; declaredSize: number; maxSize: number }, out: Uint8Array): Uint8Array {
  if (out.length > entry.declaredSize) throw tooLarge(entry);
  if (out.length !== entry.declaredSize)
    throw new BundleError(`"${entry.name}" inflates to ${out.length} bytes, not the ${entry.declaredSize} its headers claim.`);
  return out;
}

/** The error for an entry that inflates past its claim (it never gets past the limit). */
export function tooLarge(entry: { name: string; declaredSize: number; maxSize: number }): BundleError {
  return new BundleError(
    `"${entry.name}" inflates to more than the ${entry.declaredSize} bytes its zip headers claim; decompression stopped there (the limit is ${entry.maxSize} bytes per file).`,
  );
}

/** Inflation stops one byte past the claim (or the limit): zlib counts the real output. */
export function inflateBound(entry: { declaredSize: number; maxSize: number }): number {
  return Math.min(entry.declaredSize, entry.maxSize) + 1;
}

/** Inflates on this thread, stopping one byte past the bound (zlib counts the real output). */
export function inflateEntry(entry: RawEntry & { name: string; maxSize: number }): Uint8Array {
  if (entry.method === 0) return checkInflated(entry, entry.data);
  if (entry.method !== 8) throw new BundleError(`Entry "${entry.name}" uses unsupported compression method ${entry.method}.`);
  try {
    return checkInflated(entry, inflateRawSync(entry.data, { maxOutputLength: inflateBound(entry) }));
  } catch (err) {
    if (err instanceof BundleError) throw err;
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(entry);
    throw new BundleError(`Entry "${entry.name}" is corrupt (${(err as Error).message}).`);
  }
}

const SYSB = [0x53, 0x59, 0x53, 0x42];

function hasSysbHeader(src: ZipSource): boolean {
  if (src.size < 8) return false;
  const head = src.read(0, 4);
  return SYSB.every((b, i) => head[i] === b);
}

/**
 * The zip inside: as-is when offsets are absolute (both CLIs), else after the 8-byte header. With
 * the wrong base the directory may still parse into garbage names, so "has a manifest" decides.
 */
function locateZip(src: ZipSource): { zip: ZipSource; entries: Map<string, EntryRef> } {
  const candidates = hasSysbHeader(src) ? [src, offsetSource(src, 8)] : [src];
  let first: { zip: ZipSource; entries: Map<string, EntryRef> } | undefined;
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

/**
 * A deflate stream is never much longer than what it inflates to (stored blocks add 5 bytes per
 * 64 KiB), and nothing may inflate past the per-file limit: more compressed bytes than that is a
 * lying entry, refused before it is read into memory.
 */
function checkCompressedSize(e: EntryRef, maxFileSize: number): void {
  if (e.compressedSize > maxFileSize + Math.ceil(maxFileSize / 1024) + 1024)
    throw new BundleError(`Entry "${e.name}" holds ${e.compressedSize} compressed bytes for the ${e.declaredSize} its headers claim.`);
}

/** Opens a bundle held in memory (`bytes`) or readable piecewise (a `ZipSource` over a file). */
export function openBundle(bytes: Uint8Array | ZipSource, limits: BundleLimits): OpenedBundle {
  const { zip, entries } = locateZip(bytes instanceof Uint8Array ? bytesSource(bytes) : bytes);
  const raw = (name: string) => {
    const e = entries.get(name);
    if (!e) throw new BundleError(`"${name}" is not in the archive.`);
    checkCompressedSize(e, limits.maxFileSize);
    return { ...entryData(zip, e), name, maxSize: limits.maxFileSize };
  };
  const manifestInfo = entries.get("manifest.json");
  if (!manifestInfo) throw new BundleError("The bundle has no manifest.json.");
  if (manifestInfo.declaredSize > limits.maxFileSize) throw new BundleError("manifest.json is too large.");
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse(new TextDecoder().decode(inflateEntry(raw("manifest.json"))));
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
    const ref = entries.get(f.entry);
    if (!ref) throw new BundleError(`manifest.json lists "${f.entry}", which is not in the archive.`);
    const info = entryInfo(ref);
    if (info.originalSize > limits.maxFileSize) {
      throw new BundleLimitError(
        "bundle_entry_too_large",
        `"${f.entry}" is ${info.originalSize} bytes decompressed; the limit is ${limits.maxFileSize} per file (SOURCEMAP_MAX_FILE_SIZE).`,
      );
    }
    total += info.originalSize;
    listed.push(info);
  }
  if (total > limits.maxTotalSize)
    throw new BundleLimitError(
      "bundle_unpacked_too_large",
      `The bundle's files total ${total} bytes decompressed; the limit is ${limits.maxTotalSize} (SOURCEMAP_MAX_UNPACKED_SIZE).`,
    );

  return {
    manifest,
    entries: listed,
    read: (name) => inflateEntry(raw(name)),
    raw,
  };
}
