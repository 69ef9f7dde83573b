/**
 * Unpacking an assembled artifact bundle from its file on disk (artifacts.ts joins and checks the
 * chunks there): open the zip, and for every manifest file read and inflate that one entry, hash
 * it, find its debug id, gzip it and append the gzip to a spool file, handing back only where each
 * landed. One entry at a time is in memory, never the bundle nor all of its files. Synchronous CPU
 * work over up to SOURCEMAP_MAX_UNPACKED_SIZE bytes, so it runs on the assembly thread
 * (bundle-thread.ts), never on the server's event loop.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { gzipSync } from "node:zlib";
import { BundleError, type ManifestFile } from "../../core/sourcemaps/bundle-manifest";
import { debugIdFromSource, debugIdFromSourceMap } from "../../core/sourcemaps/debug-id";
import { BundleLimitError, openBundle } from "../../core/sourcemaps/read-bundle";
import { resolveUrl } from "../../core/sourcemaps/url-paths";
import type { ZipSource } from "../../core/sourcemaps/zip-entry";
import type { NewArtifactFile } from "../../storage/releases/artifacts";

export interface UnpackRequest {
  /** the assembled bundle (its checksum already verified) */
  file: string;
  /** where the files' gzip bytes are appended (created; the caller removes it) */
  spool: string;
  limits: { maxFileSize: number; maxUnpackedSize: number };
}

/** A bundle file whose gzip bytes wait in the spool file at `gzAt`. */
export type SpooledArtifactFile = Omit<NewArtifactFile, "gz"> & { gzAt: { offset: number; length: number } };

export type UnpackResult =
  | { ok: true; files: SpooledArtifactFile[]; bundleDebugId: string | null; release: string | null; dist: string | null; size: number }
  /** `limit`: a configured cap, answered with `code`; `invalid`: a broken or lying bundle (state `error`) */
  | { ok: false; kind: "limit"; code: BundleLimitError["code"]; message: string }
  | { ok: false; kind: "invalid"; message: string };

const sha1Hex = (data: Uint8Array) => createHash("sha1").update(data).digest("hex");

/** Positioned reads of an open file: only the bytes asked for are in memory. */
function fileSource(fd: number, size: number): ZipSource {
  return {
    size,
    read(offset, length) {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const n = fs.readSync(fd, buf, got, length - got, offset + got);
        if (n === 0) throw new BundleError("The bundle ended early.");
        got += n;
      }
      return buf;
    },
  };
}

function writeAllSync(fd: number, data: Uint8Array, at: number): void {
  for (let done = 0; done < data.length; ) done += fs.writeSync(fd, data, done, data.length - done, at + done);
}

export function unpackBundle(req: UnpackRequest): UnpackResult {
  const fd = fs.openSync(req.file, "r");
  const spool = fs.openSync(req.spool, "w", 0o600);
  try {
    const size = fs.fstatSync(fd).size;
    const bundle = openBundle(fileSource(fd, size), {
      maxFileSize: req.limits.maxFileSize,
      maxFiles: 20_000,
      maxTotalSize: req.limits.maxUnpackedSize,
    });
    const files: SpooledArtifactFile[] = [];
    const decoder = new TextDecoder();
    let spooled = 0;
    for (const f of bundle.manifest.files) {
      // Inflation stops one byte past the entry's claim: a lying header cannot get past the caps.
      const data = bundle.read(f.entry);
      const gz = gzipSync(data);
      writeAllSync(spool, gz, spooled);
      files.push({
        url: f.url,
        type: f.type,
        debugId: f.debugId ?? embeddedDebugId(f, data, decoder),
        sourcemap: f.sourcemap,
        size: data.length,
        sha1: sha1Hex(data),
        gzAt: { offset: spooled, length: gz.length },
      });
      spooled += gz.length;
    }
    linkMapsToMinifiedFiles(files);
    return {
      ok: true,
      files,
      bundleDebugId: bundle.manifest.debugId,
      release: bundle.manifest.release,
      dist: bundle.manifest.dist,
      size,
    };
  } catch (err) {
    if (err instanceof BundleLimitError) return { ok: false, kind: "limit", code: err.code, message: err.message };
    if (err instanceof BundleError) return { ok: false, kind: "invalid", message: err.message };
    throw err;
  } finally {
    fs.closeSync(fd);
    fs.closeSync(spool);
  }
}

/** A file without a `debug-id` header may carry one in its body (reference §8.4). */
export function embeddedDebugId(f: Pick<ManifestFile, "type">, data: Uint8Array, decoder: TextDecoder): string | null {
  if (f.type === "source_map") return debugIdFromSourceMap(decoder.decode(data));
  if (f.type === "minified_source") return debugIdFromSource(decoder.decode(data.subarray(Math.max(0, data.length - 4096))));
  return null;
}

/**
 * A minified file names its map with the `sourcemap` header; when only the minified file carries
 * the debug id, the map it points to gets it too (lookups are by the map's debug id).
 */
function linkMapsToMinifiedFiles(files: Array<Pick<NewArtifactFile, "url" | "type" | "debugId" | "sourcemap">>): void {
  const byUrl = new Map(files.filter((f) => f.type === "source_map").map((f) => [f.url, f]));
  for (const f of files) {
    if (f.type !== "minified_source" || !f.debugId || !f.sourcemap) continue;
    const map = byUrl.get(resolveUrl(f.url, f.sourcemap));
    if (map && !map.debugId) map.debugId = f.debugId;
  }
}
