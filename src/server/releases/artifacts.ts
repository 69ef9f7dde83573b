/**
 * Source-map uploads (reference §8.3, §8.3b, §8.7) with authorization: the organization lookup
 * the JS `sentry` CLI makes first, chunk-upload options and chunks, artifact-bundle assembly, and
 * the legacy release-file flow. Every call checks org membership and an upload scope.
 *
 * Assembly is synchronous (an upload's bundle is usually a few MiB): the final assemble call
 * answers `ok` or `error`, never `not_found` once every chunk is there. Entries are unpacked one
 * at a time in memory (never to disk), and the event loop gets a turn between files.
 */

import { createHash } from "node:crypto";
import { setImmediate as yieldTurn } from "node:timers/promises";
import { promisify } from "node:util";
import { gunzip, gzip, inflateRaw } from "node:zlib";
import { z } from "zod";
import type { SourcemapConfig } from "../../config";
import { AppError } from "../../core/errors";
import { BundleError, type ManifestFile } from "../../core/sourcemaps/bundle-manifest";
import { debugIdFromSource, debugIdFromSourceMap, normalizeDebugId } from "../../core/sourcemaps/debug-id";
import { checkInflated, inflateBound, type OpenedBundle, openBundle, tooLarge } from "../../core/sourcemaps/read-bundle";
import { resolveUrl } from "../../core/sourcemaps/url-paths";
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import { isUniqueViolation, writeTx } from "../../storage/dialect";
import { findProjectBySlug, listProjectsOfOrg, type ProjectRow } from "../../storage/orgs/projects";
import {
  addBundleProjects,
  bundleDebugIds,
  bundleProjectIds,
  chunkSizes,
  deleteChunks,
  deleteStaleChunks,
  enqueueResymbolication,
  ensureRelease,
  findBundle,
  findReleaseFile,
  insertBundle,
  insertReleaseFile,
  loadChunk,
  missingChunks,
  type NewArtifactFile,
  storeChunk,
} from "../../storage/releases/artifacts";
import { requirePermission } from "../access/access";
import { sentryOrg } from "../members/sentry-shapes";
import type { OrgSummary, Viewer } from "../types";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const inflateRawAsync = promisify(inflateRaw);

/**
 * One bundle entry inflated on libuv's thread pool, not the event loop, and stopped by zlib one
 * byte past its claimed size or the limit (a zip bomb's headers understate its size).
 */
async function inflateOffThread(entry: ReturnType<OpenedBundle["raw"]>): Promise<Uint8Array> {
  if (entry.method === 0) return checkInflated(entry, entry.data);
  if (entry.method !== 8) throw new BundleError(`Entry "${entry.name}" uses unsupported compression method ${entry.method}.`);
  try {
    return checkInflated(entry, await inflateRawAsync(entry.data, { maxOutputLength: inflateBound(entry) }));
  } catch (err) {
    if (err instanceof BundleError) throw err;
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(entry);
    throw new BundleError(`Entry "${entry.name}" is corrupt (${(err as Error).message}).`);
  }
}

export type AssembleState = "not_found" | "created" | "assembling" | "ok" | "error";

export interface AssembleResponse {
  state: AssembleState;
  missingChunks: string[];
  detail: string | null;
}

export interface ChunkUploadOptions {
  url: string;
  chunkSize: number;
  chunksPerRequest: number;
  maxFileSize: number;
  maxRequestSize: number;
  concurrency: number;
  hashAlgorithm: "sha1";
  compression: string[];
  accept: string[];
}

/** What the routes hand over: a request's headers and body stream (a `Request` fits). */
export interface UploadBody {
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

export interface ArtifactServices {
  /** `GET /api/0/organizations/{org}/`: the JS CLI reads `links.regionUrl` from it. */
  orgDetails(viewer: Viewer, orgSlug: string): Promise<Record<string, unknown>>;
  chunkUploadOptions(viewer: Viewer, orgSlug: string): Promise<ChunkUploadOptions>;
  /** Multipart chunks (`file_gzip` or `file`, filename = sha1). Throws `upload_rejected` with Sentry's message. */
  uploadChunks(viewer: Viewer, orgSlug: string, req: UploadBody): Promise<void>;
  assembleBundle(viewer: Viewer, orgSlug: string, body: unknown): Promise<AssembleResponse>;
  /** Legacy: `POST /organizations/{org}/releases/` (and the single-project variant). */
  createRelease(
    viewer: Viewer,
    orgSlug: string,
    body: unknown,
    projectSlug?: string,
  ): Promise<{ created: boolean; release: Record<string, unknown> }>;
  /** Legacy: one release file, multipart `file`, `name`, `dist`, `header`. Returns null when the name exists (409). */
  uploadReleaseFile(
    viewer: Viewer,
    orgSlug: string,
    projectSlug: string,
    version: string,
    req: UploadBody,
  ): Promise<Record<string, unknown> | null>;
  /** Legacy: a release bundle assembled from chunks, matched by URL within the release. */
  assembleRelease(viewer: Viewer, orgSlug: string, version: string, body: unknown): Promise<AssembleResponse>;
}

export interface ArtifactDeps {
  db: Db;
  config: SourcemapConfig;
  publicUrl: string;
  log: Logger;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
}

// Never-assembled chunks (an aborted upload) are removed after this long.
const STALE_CHUNK_MS = 24 * 3600 * 1000;
const SHA1 = /^[0-9a-f]{40}$/;

const sha1Hex = (data: Uint8Array) => createHash("sha1").update(data).digest("hex");
const reject = (message: string) => new AppError("upload_rejected", message);

const AssembleSchema = z.object({
  checksum: z.string().regex(SHA1),
  chunks: z.array(z.string().regex(SHA1)).max(10_000),
  projects: z.array(z.string().max(200)).max(1000).optional(),
  version: z.string().max(250).optional(),
  dist: z.string().max(250).optional(),
});

const ReleaseSchema = z.object({
  version: z.string().min(1).max(250),
  projects: z.array(z.string().max(200)).max(1000).optional(),
});

export function createArtifactServices(deps: ArtifactDeps): ArtifactServices {
  const { db, config, log, now } = deps;

  /** `artifact.upload` in the permission table: members and above, as in Sentry (CI runs with a developer's token). */
  async function uploader(viewer: Viewer, orgSlug: string): Promise<OrgSummary> {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "artifact.upload");
    return org;
  }

  async function projectsBySlug(orgId: number, slugs: string[]): Promise<{ ids: number[]; unknown: string[] }> {
    const all = await listProjectsOfOrg(db, orgId);
    const bySlug = new Map(all.map((p) => [p.slug, p]));
    const unknown = slugs.filter((s) => !bySlug.has(s));
    return { ids: [...new Set(slugs.map((s) => bySlug.get(s)?.id).filter((id): id is number => id !== undefined))], unknown };
  }

  /** The body, counted as it streams: never more than `max` bytes in memory. */
  async function readBounded(req: UploadBody, max: number, tooLarge: string): Promise<Buffer<ArrayBuffer>> {
    const declared = Number(req.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > max) throw reject(tooLarge);
    if (!req.body) return Buffer.alloc(0);
    const parts: Uint8Array[] = [];
    let total = 0;
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > max) {
        await reader.cancel().catch(() => {});
        throw reject(tooLarge);
      }
      parts.push(value);
    }
    return Buffer.concat(parts, total);
  }

  async function formData(req: UploadBody, max: number, tooLarge: string): Promise<FormData> {
    const contentType = req.headers.get("content-type") ?? "";
    if (!/^multipart\/form-data/i.test(contentType)) throw reject("Expected a multipart/form-data body");
    const bytes = await readBounded(req, max, tooLarge);
    try {
      return await new Response(bytes, { headers: { "content-type": contentType } }).formData();
    } catch {
      throw reject("The multipart body could not be parsed");
    }
  }

  async function decodeChunk(part: File, gzipped: boolean): Promise<Uint8Array> {
    if (!gzipped) {
      if (part.size > config.chunkSize) throw reject("Chunk size too large");
      return new Uint8Array(await part.arrayBuffer());
    }
    try {
      // Bounded: a gzip bomb stops at chunkSize.
      return await gunzipAsync(new Uint8Array(await part.arrayBuffer()), { maxOutputLength: config.chunkSize });
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError) throw reject("Chunk size too large");
      throw reject("A chunk is not valid gzip");
    }
  }

  // -------------------------------------------------------------------------------------------
  // Assembly

  async function assembleFile(orgId: number, checksum: string, chunks: string[]): Promise<Buffer | AssembleResponse> {
    const sizes = await chunkSizes(db, orgId, chunks);
    const total = chunks.reduce((n, c) => n + (sizes.get(c) ?? 0), 0);
    if (total > config.maxBundleSize)
      return errorState(`The bundle is ${total} bytes; the limit is ${config.maxBundleSize} (SOURCEMAP_MAX_BUNDLE_SIZE).`);
    const out = Buffer.allocUnsafe(total);
    const hash = createHash("sha1");
    let offset = 0;
    for (const c of chunks) {
      const data = await loadChunk(db, orgId, c);
      if (!data) return { state: "not_found", missingChunks: [c], detail: null };
      data.copy(out, offset);
      hash.update(data);
      offset += data.length;
    }
    if (hash.digest("hex") !== checksum) return errorState("The assembled file does not match its checksum.");
    return out;
  }

  async function unpack(
    bytes: Buffer,
  ): Promise<{ files: NewArtifactFile[]; bundleDebugId: string | null; release: string | null; dist: string | null }> {
    const bundle = openBundle(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), {
      maxFileSize: config.maxFileSize,
      maxFiles: 20_000,
      // Decompressed total: bounded so a bundle cannot expand without limit in the database.
      maxTotalSize: Math.max(config.maxBundleSize * 8, config.maxFileSize),
    });
    const files: NewArtifactFile[] = [];
    const decoder = new TextDecoder();
    for (const f of bundle.manifest.files) {
      const data = await inflateOffThread(bundle.raw(f.entry));
      files.push({
        url: f.url,
        type: f.type,
        debugId: f.debugId ?? embeddedDebugId(f, data, decoder),
        sourcemap: f.sourcemap,
        size: data.length,
        sha1: sha1Hex(data),
        gz: await gzipAsync(data),
      });
      await yieldTurn();
    }
    linkMapsToMinifiedFiles(files);
    return { files, bundleDebugId: bundle.manifest.debugId, release: bundle.manifest.release, dist: bundle.manifest.dist };
  }

  async function assemble(org: OrgSummary, body: unknown, opts: { release?: string }): Promise<AssembleResponse> {
    const parsed = AssembleSchema.safeParse(body);
    if (!parsed.success) throw new AppError("validation_failed", "The assemble request needs `checksum` and `chunks` (sha1 hex).");
    const req = parsed.data;
    const { ids: projectIds, unknown } = await projectsBySlug(org.id, req.projects ?? []);
    if (unknown.length > 0) return errorState(`Unknown project(s) in ${org.slug}: ${unknown.join(", ")}.`);
    if (req.chunks.length === 0) return errorState("The bundle has no chunks.");
    if (req.chunks.length > Math.ceil(config.maxBundleSize / config.chunkSize) + 1) {
      return errorState(
        `The bundle has ${req.chunks.length} chunks; the limit is ${config.maxBundleSize} bytes (SOURCEMAP_MAX_BUNDLE_SIZE).`,
      );
    }

    const existing = await findBundle(db, org.id, req.checksum);
    if (existing) return reuse(org.id, existing.id, projectIds);

    const missing = await missingChunks(db, org.id, req.chunks);
    if (missing.length > 0) return { state: "not_found", missingChunks: missing, detail: null };

    const assembled = await assembleFile(org.id, req.checksum, req.chunks);
    if (!Buffer.isBuffer(assembled)) return assembled;
    let unpacked: Awaited<ReturnType<typeof unpack>>;
    try {
      unpacked = await unpack(assembled);
    } catch (err) {
      if (err instanceof BundleError) return errorState(err.message);
      throw err;
    }
    const release = opts.release ?? req.version ?? unpacked.release ?? "";
    const dist = req.dist ?? unpacked.dist ?? "";
    const debugIds = [...new Set(unpacked.files.map((f) => f.debugId).filter((d): d is string => d !== null))];
    const t = now();
    try {
      await writeTx(db, async (tx) => {
        await insertBundle(tx, {
          orgId: org.id,
          checksum: req.checksum,
          bundleDebugId: unpacked.bundleDebugId,
          release,
          dist,
          size: assembled.length,
          projectIds,
          files: unpacked.files,
          now: t,
        });
        if (opts.release) await ensureRelease(tx, { orgId: org.id, version: opts.release, projectIds, now: t });
        await enqueueResymbolication(tx, { orgId: org.id, debugIds, now: t });
        await deleteChunks(tx, org.id, req.chunks);
      });
    } catch (err) {
      // The same bundle assembled concurrently by another request: that one won.
      if (!isUniqueViolation(err)) throw err;
    }
    deleteStaleChunks(db, t - STALE_CHUNK_MS).catch((err: unknown) =>
      log.warn({ err: (err as Error)?.message }, "sweeping stale chunks failed"),
    );
    log.info(
      { org: org.slug, files: unpacked.files.length, debugIds: debugIds.length, release: release || undefined, bytes: assembled.length },
      "artifact bundle assembled",
    );
    return { state: "ok", missingChunks: [], detail: null };
  }

  /** A bundle uploaded before (same checksum): nothing to upload; extend it to newly named projects. */
  async function reuse(orgId: number, bundleId: number, projectIds: number[]): Promise<AssembleResponse> {
    if (projectIds.length > 0) {
      const known = new Set(await bundleProjectIds(db, bundleId));
      const added = projectIds.filter((p) => !known.has(p));
      // A bundle without projects already serves the whole organization.
      if (known.size > 0 && added.length > 0) {
        const debugIds = await bundleDebugIds(db, bundleId);
        await writeTx(db, async (tx) => {
          await addBundleProjects(tx, bundleId, added);
          await enqueueResymbolication(tx, { orgId, debugIds, now: now() });
        });
      }
    }
    return { state: "ok", missingChunks: [], detail: null };
  }

  // -------------------------------------------------------------------------------------------

  return {
    async orgDetails(viewer, orgSlug) {
      const org = await deps.membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "org.read");
      return { ...sentryOrg(org, deps.publicUrl), access: [] };
    },

    async chunkUploadOptions(viewer, orgSlug) {
      const org = await uploader(viewer, orgSlug);
      return {
        url: `${deps.publicUrl}/api/0/organizations/${encodeURIComponent(org.slug)}/chunk-upload/`,
        chunkSize: config.chunkSize,
        chunksPerRequest: config.chunksPerRequest,
        maxFileSize: config.maxBundleSize,
        maxRequestSize: config.maxRequestSize,
        // Chunks land in one database; two streams keep the CLI busy without starving ingest.
        concurrency: 2,
        hashAlgorithm: "sha1",
        // Not zstd: the JS CLI prefers it when listed and we do not decode it.
        compression: ["gzip"],
        accept: [
          "debug_files",
          "release_files",
          "pdbs",
          "sources",
          "bcsymbolmaps",
          "il2cpp",
          "portablepdbs",
          "artifact_bundles",
          "artifact_bundles_v2",
          "proguard",
        ],
      };
    },

    async uploadChunks(viewer, orgSlug, req) {
      const org = await uploader(viewer, orgSlug);
      const form = await formData(req, config.maxRequestSize, "Request too large");
      const parts: Array<{ part: File; gzipped: boolean }> = [];
      for (const [field, value] of form.entries()) {
        if ((field === "file_gzip" || field === "file") && typeof value !== "string")
          parts.push({ part: value, gzipped: field === "file_gzip" });
      }
      if (parts.length > config.chunksPerRequest) throw reject("Too many chunks");
      const t = now();
      for (const { part, gzipped } of parts) {
        const checksum = part.name.toLowerCase();
        const data = await decodeChunk(part, gzipped);
        if (sha1Hex(data) !== checksum) throw reject("Checksum mismatch");
        await storeChunk(db, { orgId: org.id, checksum, data, now: t });
      }
    },

    async assembleBundle(viewer, orgSlug, body) {
      const org = await uploader(viewer, orgSlug);
      return assemble(org, body, {});
    },

    async assembleRelease(viewer, orgSlug, version, body) {
      const org = await uploader(viewer, orgSlug);
      return assemble(org, body, { release: version });
    },

    async createRelease(viewer, orgSlug, body, projectSlug) {
      const org = await uploader(viewer, orgSlug);
      const parsed = ReleaseSchema.safeParse(body);
      if (!parsed.success)
        throw new AppError("validation_failed", "A release needs a `version`.", {
          fields: [{ field: "version", rule: "required", message: "required" }],
        });
      const slugs = [...new Set([...(parsed.data.projects ?? []), ...(projectSlug ? [projectSlug] : [])])];
      const { ids, unknown } = await projectsBySlug(org.id, slugs);
      if (unknown.length > 0)
        throw new AppError("validation_failed", `Unknown project(s): ${unknown.join(", ")}.`, {
          fields: [{ field: "projects", rule: "exists", message: "unknown project" }],
        });
      const t = now();
      const release = await writeTx(db, (tx) =>
        ensureRelease(tx, { orgId: org.id, version: parsed.data.version, projectIds: ids, now: t }),
      );
      const projects = (await listProjectsOfOrg(db, org.id)).filter((p) => ids.includes(p.id));
      return { created: release.createdAt === t, release: releaseJson(release.id, parsed.data.version, release.createdAt, projects) };
    },

    async uploadReleaseFile(viewer, orgSlug, projectSlug, version, req) {
      const org = await uploader(viewer, orgSlug);
      const project = await findProjectBySlug(db, org.id, projectSlug);
      if (!project) throw new AppError("not_found", "Project not found.");
      // The file plus its form fields.
      const form = await formData(req, config.maxFileSize + 64 * 1024, "Request too large");
      const file = form.get("file");
      const name = form.get("name");
      if (!file || typeof file === "string")
        throw new AppError("validation_failed", "The `file` part is required.", {
          fields: [{ field: "file", rule: "required", message: "required" }],
        });
      const url = typeof name === "string" && name !== "" ? name : file.name;
      const dist = typeof form.get("dist") === "string" ? (form.get("dist") as string) : "";
      const headers: Record<string, string> = {};
      for (const h of form.getAll("header")) {
        if (typeof h !== "string" || !h.includes(":")) continue;
        const i = h.indexOf(":");
        headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
      }
      if (await findReleaseFile(db, { orgId: org.id, release: version, dist, url })) return null;
      const data = new Uint8Array(await file.arrayBuffer());
      const text = new TextDecoder().decode(data.subarray(0, Math.min(data.length, 256)));
      const type =
        /\.map(?:$|\?)/.test(url) || /^\s*\{[\s\S]*"(version|mappings|sections)"/.test(text)
          ? "source_map"
          : /\.[cm]?jsx?(?:$|\?)/.test(url)
            ? "minified_source"
            : "source";
      const artifact: NewArtifactFile = {
        url,
        type,
        debugId: normalizeDebugId(headers["debug-id"]) ?? embeddedDebugId({ type } as ManifestFile, data, new TextDecoder()),
        sourcemap: headers.sourcemap ?? headers["x-sourcemap"] ?? null,
        size: data.length,
        sha1: sha1Hex(data),
        gz: await gzipAsync(data),
      };
      const t = now();
      const id = await writeTx(db, async (tx) => {
        await ensureRelease(tx, { orgId: org.id, version, projectIds: [project.id], now: t });
        const fileId = await insertReleaseFile(tx, { orgId: org.id, release: version, dist, file: artifact, now: t });
        if (artifact.debugId) await enqueueResymbolication(tx, { orgId: org.id, debugIds: [artifact.debugId], now: t });
        return fileId;
      });
      return {
        id: String(id),
        name: url,
        dist: dist || null,
        headers,
        size: data.length,
        sha1: artifact.sha1,
        dateCreated: new Date(t).toISOString(),
      };
    },
  };
}

function errorState(detail: string): AssembleResponse {
  return { state: "error", missingChunks: [], detail };
}

/** A file without a `debug-id` header may carry one in its body (reference §8.4). */
function embeddedDebugId(f: Pick<ManifestFile, "type">, data: Uint8Array, decoder: TextDecoder): string | null {
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

function releaseJson(id: number, version: string, createdAt: number, projects: ProjectRow[]): Record<string, unknown> {
  return {
    id,
    version,
    shortVersion: version,
    ref: null,
    url: null,
    dateCreated: new Date(createdAt).toISOString(),
    dateReleased: null,
    data: {},
    newGroups: 0,
    owner: null,
    commitCount: 0,
    lastCommit: null,
    deployCount: 0,
    lastDeploy: null,
    authors: [],
    projects: projects.map((p) => ({ id: p.id, slug: p.slug, name: p.name, platform: p.platform })),
    firstEvent: null,
    lastEvent: null,
  };
}
