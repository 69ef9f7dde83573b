/**
 * Unpacking an assembled artifact bundle: join its chunks, check the checksum, open the zip, and
 * for every manifest file inflate it, hash it, find its debug id and gzip it for storage. All of it
 * synchronous CPU work over up to SOURCEMAP_MAX_UNPACKED_SIZE bytes, so it runs on the assembly
 * thread (bundle-thread.ts), never on the server's event loop.
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { BundleError, type ManifestFile } from "../../core/sourcemaps/bundle-manifest";
import { debugIdFromSource, debugIdFromSourceMap } from "../../core/sourcemaps/debug-id";
import { BundleLimitError, openBundle } from "../../core/sourcemaps/read-bundle";
import { resolveUrl } from "../../core/sourcemaps/url-paths";
import type { NewArtifactFile } from "../../storage/releases/artifacts";

export interface UnpackRequest {
  /** the bundle's chunks, in order */
  chunks: Uint8Array[];
  /** sha1 hex the joined chunks must have */
  checksum: string;
  limits: { maxFileSize: number; maxUnpackedSize: number };
}

export type UnpackResult =
  | { ok: true; files: NewArtifactFile[]; bundleDebugId: string | null; release: string | null; dist: string | null; size: number }
  /** `limit`: a configured cap, answered with `code`; `invalid`: a broken or lying bundle (state `error`) */
  | { ok: false; kind: "limit"; code: BundleLimitError["code"]; message: string }
  | { ok: false; kind: "invalid"; message: string };

const sha1Hex = (data: Uint8Array) => createHash("sha1").update(data).digest("hex");

export function unpackBundle(req: UnpackRequest): UnpackResult {
  const bytes = Buffer.concat(req.chunks);
  if (sha1Hex(bytes) !== req.checksum) return { ok: false, kind: "invalid", message: "The assembled file does not match its checksum." };
  try {
    const bundle = openBundle(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), {
      maxFileSize: req.limits.maxFileSize,
      maxFiles: 20_000,
      maxTotalSize: req.limits.maxUnpackedSize,
    });
    const files: NewArtifactFile[] = [];
    const decoder = new TextDecoder();
    for (const f of bundle.manifest.files) {
      // Inflation stops one byte past the entry's claim: a lying header cannot get past the caps.
      const data = bundle.read(f.entry);
      files.push({
        url: f.url,
        type: f.type,
        debugId: f.debugId ?? embeddedDebugId(f, data, decoder),
        sourcemap: f.sourcemap,
        size: data.length,
        sha1: sha1Hex(data),
        gz: gzipSync(data),
      });
    }
    linkMapsToMinifiedFiles(files);
    return {
      ok: true,
      files,
      bundleDebugId: bundle.manifest.debugId,
      release: bundle.manifest.release,
      dist: bundle.manifest.dist,
      size: bytes.length,
    };
  } catch (err) {
    if (err instanceof BundleLimitError) return { ok: false, kind: "limit", code: err.code, message: err.message };
    if (err instanceof BundleError) return { ok: false, kind: "invalid", message: err.message };
    throw err;
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
function linkMapsToMinifiedFiles(files: NewArtifactFile[]): void {
  const byUrl = new Map(files.filter((f) => f.type === "source_map").map((f) => [f.url, f]));
  for (const f of files) {
    if (f.type !== "minified_source" || !f.debugId || !f.sourcemap) continue;
    const map = byUrl.get(resolveUrl(f.url, f.sourcemap));
    if (map && !map.debugId) map.debugId = f.debugId;
  }
}
