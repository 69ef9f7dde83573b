/**
 * Digest-time symbolication (reference §8.5): finds the source map for each file an event's
 * frames are in — by the debug id `debug_meta.images` names, else by URL among the release's
 * files (legacy flow, following `sourceMappingURL`) — and hands them to the pure mapper in
 * `src/core/symbolicate`.
 *
 * Caches: parsed maps by file id in an LRU bounded by estimated bytes (files never change);
 * lookup results (which file serves a debug id or URL, misses included) in a count-bounded LRU
 * that is cleared whenever anything new was uploaded — checked at most once per `refreshMs` with
 * one indexed `max(id)` query — and by the re-symbolicator before it runs a job.
 */
import type { NormalizedEvent } from "../core/event";
import { sourceMappingUrlFromSource } from "../core/sourcemaps/debug-id";
import { releaseArtifactNames, resolveUrl } from "../core/sourcemaps/url-paths";
import { type ParsedSourceMap, parseSourceMap } from "../core/symbolicate/parsed-source-map";
import {
  applySourceMaps,
  type FileRef,
  type FileResolution,
  type SymbolicationResult,
  sourcemapFileRefs,
} from "../core/symbolicate/symbolicate-frames";
import type { Logger } from "../log";
import type { Db } from "../storage/db";
import {
  type ArtifactRef,
  artifactGeneration,
  findFileByDebugId,
  findReleaseArtifact,
  hasReleaseArtifacts,
  orgOfProject,
  readArtifactFile,
  touchBundle,
} from "../storage/releases/artifacts";
import { CostLru } from "./sourcemap-cache";

export interface SymbolicatorOptions {
  /** budget of the parsed-map cache, in estimated bytes */
  cacheBytes: number;
  /** lookup results kept (default 20 000) */
  lookupEntries?: number;
  /** how often to check for new uploads (default 1 s) */
  refreshMs?: number;
  now?: () => number;
}

export interface Symbolicator {
  /** Rewrites the event's frames in place; never throws (a failure becomes a note). */
  symbolicate(event: NormalizedEvent, projectId: number): Promise<SymbolicationResult>;
  /** Forget lookup results (not parsed maps): something was uploaded. */
  invalidateLookups(): void;
  stats(): { maps: number; mapBytes: number; lookups: number };
}

const NOTHING: SymbolicationResult = { mapped: 0, changed: false, missingDebugIds: [] };
const JS_FILE = /\.(?:[cm]?js|jsx|bundle)(?:[?#].*)?$/i;

type Loaded = { ok: true; map: ParsedSourceMap } | { ok: false; error: string };
type Lookup = ArtifactRef | null;

/** A bundle's use is written at most this often (its expiry counts in days). */
const BUNDLE_TOUCH_MS = 24 * 3600 * 1000;

export function createSymbolicator(db: Db, log: Logger, opts: SymbolicatorOptions): Symbolicator {
  const now = opts.now ?? Date.now;
  const refreshMs = opts.refreshMs ?? 1000;
  const maps = new CostLru<Loaded>(opts.cacheBytes);
  const lookups = new CostLru<Lookup | boolean>(opts.lookupEntries ?? 20_000);
  const orgs = new Map<number, number>();
  let generation = -1;
  let checkedAt = Number.NEGATIVE_INFINITY;

  async function refresh(): Promise<void> {
    const t = now();
    if (t - checkedAt < refreshMs) return;
    checkedAt = t;
    const g = await artifactGeneration(db);
    if (g !== generation) {
      lookups.clear();
      generation = g;
    }
  }

  async function orgOf(projectId: number): Promise<number | undefined> {
    const cached = orgs.get(projectId);
    if (cached !== undefined) return cached;
    const org = await orgOfProject(db, projectId);
    // Projects never move between organizations.
    if (org !== undefined) orgs.set(projectId, org);
    return org;
  }

  /** bundle id → when this thread last recorded its use (unused bundles expire; see retention) */
  const touched = new Map<number, number>();
  function markUsed(ref: Lookup): void {
    if (!ref || ref.bundleId === null) return;
    const t = now();
    if (t - (touched.get(ref.bundleId) ?? Number.NEGATIVE_INFINITY) < BUNDLE_TOUCH_MS) return;
    touched.set(ref.bundleId, t);
    // Off the event's path: a failed write only delays the bundle's expiry date.
    touchBundle(db, ref.bundleId, t).catch((err: unknown) =>
      log.warn({ err: (err as Error)?.message, bundleId: ref.bundleId }, "recording a bundle's use failed"),
    );
  }

  async function cachedLookup(key: string, find: () => Promise<ArtifactRef | undefined>): Promise<Lookup> {
    const hit = lookups.get(key);
    if (hit !== undefined && typeof hit !== "boolean") {
      markUsed(hit);
      return hit;
    }
    const found = (await find()) ?? null;
    lookups.set(key, found);
    markUsed(found);
    return found;
  }

  async function loadMap(fileId: number): Promise<Loaded> {
    const key = `f:${fileId}`;
    const hit = maps.get(key);
    if (hit) return hit;
    let loaded: Loaded;
    try {
      const bytes = await readArtifactFile(db, fileId);
      loaded = bytes ? { ok: true, map: parseSourceMap(bytes.toString("utf8")) } : { ok: false, error: "the file is gone" };
    } catch (err) {
      loaded = { ok: false, error: (err as Error).message };
    }
    maps.set(key, loaded, loaded.ok ? loaded.map.cost : 64);
    return loaded;
  }

  function loadInlineMap(key: string, dataUrl: string): Loaded {
    const hit = maps.get(key);
    if (hit) return hit;
    let loaded: Loaded;
    try {
      const comma = dataUrl.indexOf(",");
      const meta = dataUrl.slice(0, comma);
      const body = dataUrl.slice(comma + 1);
      const text = meta.endsWith(";base64") ? Buffer.from(body, "base64").toString("utf8") : decodeURIComponent(body);
      loaded = { ok: true, map: parseSourceMap(text) };
    } catch (err) {
      loaded = { ok: false, error: (err as Error).message };
    }
    maps.set(key, loaded, loaded.ok ? loaded.map.cost : 64);
    return loaded;
  }

  async function byDebugId(orgId: number, projectId: number, ref: FileRef & { debugId: string }): Promise<FileResolution> {
    const file = await cachedLookup(`d:${projectId}:${ref.debugId}`, () =>
      findFileByDebugId(db, { orgId, projectId, debugId: ref.debugId, type: "source_map" }),
    );
    if (!file) {
      return {
        kind: "missing",
        reason: "missing_sourcemap",
        debugId: ref.debugId,
        detail: `No source map was uploaded for debug id ${ref.debugId} (file ${ref.file}).`,
      };
    }
    const loaded = await loadMap(file.id);
    if (!loaded.ok) {
      return {
        kind: "missing",
        reason: "unreadable_sourcemap",
        debugId: ref.debugId,
        detail: `The source map for debug id ${ref.debugId} (file ${ref.file}, uploaded as ${file.url}) could not be read: ${loaded.error}.`,
      };
    }
    return { kind: "map", map: loaded.map, ref: ref.debugId, debugId: ref.debugId };
  }

  async function hasRelease(orgId: number, release: string): Promise<boolean> {
    const key = `r?:${orgId}:${release}`;
    const hit = lookups.get(key);
    if (typeof hit === "boolean") return hit;
    const has = await hasReleaseArtifacts(db, orgId, release);
    lookups.set(key, has);
    return has;
  }

  /** Legacy flow: the frame URL among the release's files, then its `sourceMappingURL`. */
  async function byRelease(orgId: number, release: string, dist: string, ref: FileRef): Promise<FileResolution> {
    if (!JS_FILE.test(ref.file) || !(await hasRelease(orgId, release))) return { kind: "none" };
    const names = releaseArtifactNames(ref.file);
    const base = { orgId, release, dist };
    const minified = await cachedLookup(`m:${orgId}:${release}:${dist}:${ref.file}`, () =>
      findReleaseArtifact(db, { ...base, urls: names, types: ["minified_source", "source"] }),
    );
    let mapNames: string[];
    let mapRef: string | null = null;
    if (minified) {
      mapRef = minified.sourcemap;
      if (!mapRef) {
        const content = await readArtifactFile(db, minified.id);
        mapRef = content ? sourceMappingUrlFromSource(content.toString("utf8")) : null;
      }
      if (mapRef?.startsWith("data:")) {
        const loaded = loadInlineMap(`inline:${minified.id}`, mapRef);
        if (loaded.ok) return { kind: "map", map: loaded.map, ref: minified.url, debugId: null };
        return {
          kind: "missing",
          reason: "unreadable_sourcemap",
          debugId: null,
          detail: `The inline source map of ${minified.url} (release ${release}) could not be read: ${loaded.error}.`,
        };
      }
      const resolved = mapRef ? resolveUrl(minified.url, mapRef) : `${minified.url.split("?")[0]}.map`;
      mapNames = [resolved, ...releaseArtifactNames(resolved)];
    } else {
      mapNames = names.map((n) => `${n.split("?")[0]}.map`);
    }
    const map = await cachedLookup(`s:${orgId}:${release}:${dist}:${ref.file}`, () =>
      findReleaseArtifact(db, { ...base, urls: [...new Set(mapNames)], types: ["source_map"] }),
    );
    if (!map) {
      if (!minified) return { kind: "none" };
      return {
        kind: "missing",
        reason: "missing_sourcemap",
        debugId: null,
        detail: `Release ${release}${dist ? ` (dist ${dist})` : ""} has ${minified.url} but not its source map ${mapNames[0]} (file ${ref.file}).`,
      };
    }
    const loaded = await loadMap(map.id);
    if (!loaded.ok) {
      return {
        kind: "missing",
        reason: "unreadable_sourcemap",
        debugId: null,
        detail: `The source map ${map.url} of release ${release} (file ${ref.file}) could not be read: ${loaded.error}.`,
      };
    }
    return { kind: "map", map: loaded.map, ref: map.url, debugId: map.debugId };
  }

  async function resolveRef(orgId: number, projectId: number, event: NormalizedEvent, ref: FileRef): Promise<FileResolution> {
    const release = event.release;
    if (ref.debugId) {
      const res = await byDebugId(orgId, projectId, { ...ref, debugId: ref.debugId });
      if (res.kind !== "missing" || !release) return res;
      // Sentry's order: debug id first, then the release's files.
      const legacy = await byRelease(orgId, release, event.dist ?? "", ref);
      return legacy.kind === "map" ? legacy : res;
    }
    if (!release) return { kind: "none" };
    return byRelease(orgId, release, event.dist ?? "", ref);
  }

  return {
    async symbolicate(event, projectId) {
      const refs = sourcemapFileRefs(event);
      if (refs.length === 0) return NOTHING;
      if (!event.release && !refs.some((r) => r.debugId)) return NOTHING;
      try {
        await refresh();
        const orgId = await orgOf(projectId);
        if (orgId === undefined) return NOTHING;
        const resolutions = new Map<string, FileResolution>();
        for (const ref of refs) resolutions.set(ref.file, await resolveRef(orgId, projectId, event, ref));
        return applySourceMaps(event, (ref) => resolutions.get(ref.file) ?? { kind: "none" });
      } catch (err) {
        log.warn(
          { err: { name: (err as Error)?.name, message: (err as Error)?.message }, projectId },
          "symbolication failed; event kept minified",
        );
        event.errata.notes.push({
          type: "sourcemap",
          detail: "Source maps could not be applied because of an internal error; the frames stay minified.",
        });
        return { ...NOTHING, changed: true };
      }
    },
    invalidateLookups() {
      lookups.clear();
      checkedAt = Number.NEGATIVE_INFINITY;
    },
    stats() {
      return { maps: maps.size, mapBytes: maps.cost, lookups: lookups.size };
    },
  };
}
