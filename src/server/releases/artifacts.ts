/**
 * Source-map uploads (reference §8.3, §8.3b, §8.7) with authorization: the organization lookup
 * the JS `sentry` CLI makes first, chunk-upload options and chunks, artifact-bundle assembly, and
 * the legacy release-file flow. Every call checks org membership and an upload scope.
 *
 * Assembly is synchronous for the caller (an upload's bundle is usually a few MiB): the final
 * assemble call answers `ok` or `error`, never `not_found` once every chunk is there. Large bodies
 * are streamed, never held whole (issue 43): chunk uploads are read part by part (chunk-upload.ts);
 * the bundle is joined chunk by chunk into a scratch file under DATA_DIR/tmp and hashed on the way,
 * then unpacked one entry at a time on a thread of its own (unpack-off-thread.ts), which spools the
 * files' gzip bytes to disk; each row reads its bytes back as it is written. A high-ratio bundle
 * cannot stall the server; decompressed sizes past SOURCEMAP_MAX_FILE_SIZE /
 * SOURCEMAP_MAX_UNPACKED_SIZE answer 413 with their catalogue code.
 */

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
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
  chunkPieces,
  chunkSizes,
  deleteChunks,
  deleteStaleChunks,
  enqueueResymbolication,
  ensureRelease,
  findBundle,
  findReleaseFile,
  insertBundle,
  insertReleaseFile,
  missingChunks,
  type NewArtifactFile,
  storeChunk,
} from "../../storage/releases/artifacts";
import { findReleaseProjects } from "../../storage/releases/meta";
import { type Access, requirePermission } from "../access/access";
import { canSeeProject, requireAllProjectsVisible } from "../access/visibility";
import { sentryOrg } from "../sentry-api/shapes/member";
import type { OrgSummary, Viewer } from "../types";
import { readChunks } from "./chunk-upload";
import { embeddedDebugId, type UnpackResult } from "./unpack-bundle";
import { unpackOffThread } from "./unpack-off-thread";

const gzipAsync = promisify(gzip);

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
  /** scratch space for assembling bundles on disk (DATA_DIR/tmp): never in memory whole */
  tmpDir: string;
}

/** An unpacked bundle whose files' gzip bytes are read from the spool as each row is written. */
type UnpackedBundle = Omit<Extract<UnpackResult, { ok: true }>, "files"> & { files: NewArtifactFile[] };

// Never-assembled chunks (an aborted upload) are removed after this long.
const STALE_CHUNK_MS = 24 * 3600 * 1000;
const SHA1 = /^[0-9a-f]{40}$/;
// Chunks are read back from the database in pieces this big while a bundle is joined.
const JOIN_PIECE = 1024 * 1024;

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

  // -------------------------------------------------------------------------------------------
  // Assembly

  /**
   * Joins the bundle's chunks, in order, into `file`, one chunk in memory at a time, after checking
   * their total against SOURCEMAP_MAX_BUNDLE_SIZE; answers an assemble response when it cannot.
   */
  async function joinChunks(orgId: number, req: { checksum: string; chunks: string[] }, file: string): Promise<AssembleResponse | null> {
    const sizes = await chunkSizes(db, orgId, req.chunks);
    const total = req.chunks.reduce((n, c) => n + (sizes.get(c) ?? 0), 0);
    if (total > config.maxBundleSize)
      return errorState(`The bundle is ${total} bytes; the limit is ${config.maxBundleSize} (SOURCEMAP_MAX_BUNDLE_SIZE).`);
    const hash = createHash("sha1");
    const out = await fs.promises.open(file, "wx", 0o600);
    try {
      for (const c of req.chunks) {
        let found = false;
        for await (const piece of chunkPieces(db, orgId, c, JOIN_PIECE)) {
          found = true;
          hash.update(piece);
          await out.write(piece);
        }
        if (!found) return { state: "not_found", missingChunks: [c], detail: null };
      }
    } finally {
      await out.close();
    }
    if (hash.digest("hex") !== req.checksum) return errorState("The assembled file does not match its checksum.");
    return null;
  }

  /** Unpacks the joined bundle on the assembly thread; a cap exceeded throws its catalogue code. */
  async function unpack(file: string, spool: string): Promise<UnpackedBundle | AssembleResponse> {
    const result = await unpackOffThread({
      file,
      spool,
      limits: { maxFileSize: config.maxFileSize, maxUnpackedSize: config.maxUnpackedSize },
    });
    if (result.ok) {
      const files = result.files.map(({ gzAt, ...f }): NewArtifactFile => ({ ...f, gz: () => readSpooled(spool, gzAt) }));
      return { ...result, files };
    }
    if (result.kind === "limit") throw new AppError(result.code, result.message);
    return errorState(result.message);
  }

  /** A scratch folder for one assembly, removed whatever happens (a crash's leftovers a day later). */
  async function withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    await fs.promises.mkdir(deps.tmpDir, { recursive: true });
    sweepScratch(deps.tmpDir, now() - STALE_CHUNK_MS).catch((err: unknown) =>
      log.warn({ err: (err as Error)?.message }, "sweeping assembly scratch folders failed"),
    );
    const dir = await fs.promises.mkdtemp(path.join(deps.tmpDir, "assemble-"));
    try {
      return await fn(dir);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
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

    return withScratch(async (dir) => {
      const bundleFile = path.join(dir, "bundle.zip");
      const failed = await joinChunks(org.id, req, bundleFile);
      if (failed) return failed;
      const unpacked = await unpack(bundleFile, path.join(dir, "files.gz"));
      if (!("ok" in unpacked)) return unpacked;
      return store(org, req, unpacked, { ...opts, projectIds });
    });
  }

  /** Writes the unpacked bundle (its files read from the spool one row at a time). */
  async function store(
    org: OrgSummary,
    req: z.infer<typeof AssembleSchema>,
    unpacked: UnpackedBundle,
    opts: { release?: string; projectIds: number[] },
  ): Promise<AssembleResponse> {
    const { projectIds } = opts;
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
      const t = now();
      await readChunks(req, config, (chunk) => storeChunk(db, { orgId: org.id, checksum: chunk.checksum, data: chunk.data, now: t }));
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

/** Scratch folders a killed assembly left behind. */
async function sweepScratch(tmpDir: string, before: number): Promise<void> {
  for (const name of await fs.promises.readdir(tmpDir)) {
    if (!name.startsWith("assemble-")) continue;
    const st = await fs.promises.stat(path.join(tmpDir, name)).catch(() => undefined);
    if (st && st.mtimeMs < before) await fs.promises.rm(path.join(tmpDir, name), { recursive: true, force: true });
  }
}

/** One file's gzip bytes from the assembly spool. */
async function readSpooled(spool: string, at: { offset: number; length: number }): Promise<Buffer> {
  const handle = await fs.promises.open(spool, "r");
  try {
    const buf = Buffer.allocUnsafe(at.length);
    const { bytesRead } = await handle.read(buf, 0, at.length, at.offset);
    if (bytesRead !== at.length) throw new Error("The assembly spool file is shorter than expected.");
    return buf;
  } finally {
    await handle.close();
  }
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
