/**
 * Source-map uploads (reference §8.3, §8.3b, §8.7) with authorization: the organization lookup
 * the JS `sentry` CLI makes first, chunk-upload options and chunks, artifact-bundle assembly, and
 * the legacy release-file flow. Every call checks org membership and an upload scope.
 *
 * Assembly is synchronous for the caller (an upload's bundle is usually a few MiB): the final
 * assemble call answers `ok` or `error`, never `not_found` once every chunk is there. The bundle is
 * joined, inflated, hashed and re-compressed in memory (never on disk) on a thread of its own
 * (unpack-off-thread.ts), so a high-ratio bundle cannot stall the server; decompressed sizes past
 * SOURCEMAP_MAX_FILE_SIZE / SOURCEMAP_MAX_UNPACKED_SIZE answer 413 with their catalogue code.
 */

import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { z } from "zod";
import type { SourcemapConfig } from "../../config";
import { AppError } from "../../core/errors";
import type { ManifestFile } from "../../core/sourcemaps/bundle-manifest";
import { normalizeDebugId } from "../../core/sourcemaps/debug-id";
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import { isUniqueViolation, writeTx } from "../../storage/dialect";
import { listProjectsOfOrg, type ProjectRow } from "../../storage/orgs/projects";
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
import { findReleaseProjects } from "../../storage/releases/meta";
import { type Access, requirePermission } from "../access/access";
import { canSeeProject, requireAllProjectsVisible } from "../access/visibility";
import { sentryOrg } from "../sentry-api/shapes/member";
import type { OrgSummary, Viewer } from "../types";
import { embeddedDebugId, type UnpackResult } from "./unpack-bundle";
import { unpackOffThread } from "./unpack-off-thread";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

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
  /** `GET /api/0/organizations/{org}/`: the JS CLI reads `links.regionUrl` from it; `userAgent` picks the one that client can follow. */
  orgDetails(viewer: Viewer, orgSlug: string, userAgent?: string | null): Promise<Record<string, unknown>>;
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
  projectOrThrow: Access["projectOrThrow"];
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

  /**
   * A release an upload adds to: when it exists, the viewer must see every project it belongs to
   * (team visibility's write rule, access/visibility.ts); one they cannot is not found.
   */
  async function requireWritableRelease(org: OrgSummary, version: string): Promise<void> {
    if (!version) return;
    const existing = await findReleaseProjects(db, org.id, version);
    if (existing) requireAllProjectsVisible(org, existing.projectIds, "Release not found.");
  }

  /** Projects named in an upload or a release: one the caller does not see is as unknown as a missing one (SPEC §6). */
  async function projectsBySlug(org: OrgSummary, slugs: string[]): Promise<{ ids: number[]; unknown: string[] }> {
    const all = (await listProjectsOfOrg(db, org.id)).filter((p) => canSeeProject(org, p.id));
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

  /** The bundle's chunks, in order, after checking their total against SOURCEMAP_MAX_BUNDLE_SIZE. */
  async function loadChunks(orgId: number, chunks: string[]): Promise<Buffer[] | AssembleResponse> {
    const sizes = await chunkSizes(db, orgId, chunks);
    const total = chunks.reduce((n, c) => n + (sizes.get(c) ?? 0), 0);
    if (total > config.maxBundleSize)
      return errorState(`The bundle is ${total} bytes; the limit is ${config.maxBundleSize} (SOURCEMAP_MAX_BUNDLE_SIZE).`);
    const out: Buffer[] = [];
    for (const c of chunks) {
      const data = await loadChunk(db, orgId, c);
      if (!data) return { state: "not_found", missingChunks: [c], detail: null };
      out.push(data);
    }
    return out;
  }

  /** Joins, checks and unpacks the chunks on the assembly thread; a cap exceeded throws its catalogue code. */
  async function unpack(checksum: string, chunks: Buffer[]): Promise<Extract<UnpackResult, { ok: true }> | AssembleResponse> {
    const result = await unpackOffThread({
      chunks,
      checksum,
      limits: { maxFileSize: config.maxFileSize, maxUnpackedSize: config.maxUnpackedSize },
    });
    if (result.ok) {
      // Structured clone hands Uint8Arrays back; storage takes Buffers.
      for (const f of result.files) f.gz = Buffer.from(f.gz.buffer, f.gz.byteOffset, f.gz.byteLength);
      return result;
    }
    if (result.kind === "limit") throw new AppError(result.code, result.message);
    return errorState(result.message);
  }

  async function assemble(org: OrgSummary, body: unknown, opts: { release?: string }): Promise<AssembleResponse> {
    const parsed = AssembleSchema.safeParse(body);
    if (!parsed.success) throw new AppError("validation_failed", "The assemble request needs `checksum` and `chunks` (sha1 hex).");
    const req = parsed.data;
    const { ids: projectIds, unknown } = await projectsBySlug(org, req.projects ?? []);
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

    const chunks = await loadChunks(org.id, req.chunks);
    if (!Array.isArray(chunks)) return chunks;
    const unpacked = await unpack(req.checksum, chunks);
    if (!("ok" in unpacked)) return unpacked;
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
          size: unpacked.size,
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
      { org: org.slug, files: unpacked.files.length, debugIds: debugIds.length, release: release || undefined, bytes: unpacked.size },
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
    async orgDetails(viewer, orgSlug, userAgent = null) {
      const org = await deps.membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "org.read");
      return { ...sentryOrg(org, deps.publicUrl, userAgent), access: [] };
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
      await requireWritableRelease(org, version);
      return assemble(org, body, { release: version });
    },

    async createRelease(viewer, orgSlug, body, projectSlug) {
      const org = await uploader(viewer, orgSlug);
      const parsed = ReleaseSchema.safeParse(body);
      if (!parsed.success)
        throw new AppError("validation_failed", "A release needs a `version`.", {
          fields: [{ field: "version", rule: "required", message: "required" }],
        });
      await requireWritableRelease(org, parsed.data.version);
      const slugs = [...new Set([...(parsed.data.projects ?? []), ...(projectSlug ? [projectSlug] : [])])];
      const { ids, unknown } = await projectsBySlug(org, slugs);
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
      // `artifact.upload` as uploader() asks, and a member outside the project's teams cannot
      // write to it (nor learn it exists): the visibility every other project route applies.
      const { org, project } = await deps.projectOrThrow(viewer, orgSlug, projectSlug, "artifact.upload");
      await requireWritableRelease(org, version);
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
