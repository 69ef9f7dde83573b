/**
 * Session replays (issue 40): every read and delete, for the pages and Sentry's REST API alike.
 * Authorization first, always through src/server/access: the org's membership and the permission
 * table (`event.read` to read, `replay.delete` to delete), then team visibility — a member sees
 * the replays of their teams' projects only, and a replay of a project they cannot see is "not
 * found", exactly like one that does not exist.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import { formatShortId } from "../../core/alerts/message";
import { AppError } from "../../core/errors";
import { replayIdOfEvent } from "../../core/replays/replay-event";
import { parseReplaySearch, parseReplaySort, type ReplaySearch } from "../../core/replays/replay-query";
import { parseQuery } from "../../core/search/parse-query";
import type { BlobStore } from "../../storage/blobs/blob-store";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import type { ProjectRow } from "../../storage/orgs/projects";
import { replayErrorLinks, replayIdsByIssue, replaysByIds, replaysOfEvents, searchReplays } from "../../storage/replays/replay-search";
import { deleteReplayRows, getReplay, getSegment, listSegments, type ReplayRow, segmentIds } from "../../storage/replays/replays";
import { type Access, credentialOf } from "../access/access";
import { permits } from "../access/permissions";
import { timeWindow } from "../sentry-api/issue-list-params";
import { pickFields, type SentryReplay, sentryReplay } from "../sentry-api/shapes/replay";
import type { OrgSummary, Viewer } from "../types";

const inflate = promisify(zlib.inflate);

export interface ReplayError {
  eventId: string;
  projectSlug: string | null;
  issueId: number | null;
  shortId: string | null;
  title: string | null;
  level: string | null;
  timestamp: number | null;
}

/** A replay as the pages show it. */
export interface ReplayView {
  replay: SentryReplay;
  projectSlug: string;
  startedAt: number;
  finishedAt: number;
  /** the stored segments' ids in order, where a player will show it (the player fetches each as stored) */
  segmentIds?: number[];
}

export interface ReplayDetailView extends ReplayView {
  errors: ReplayError[];
  /** what the viewer may do */
  canDelete: boolean;
}

export interface ReplayListPage {
  rows: ReplayView[];
  /** offset of the next page, null at the end */
  next: number | null;
}

export interface ReplayListInput {
  /** the search field (the issues' query language over replay fields) */
  query: string;
  sort?: string | null;
  /** project slugs; empty: every project the viewer sees */
  projects?: string[];
  environments?: string[];
  range?: { start: number; end: number } | null;
  offset?: number;
  limit?: number;
}

/** What an error event links to: its replay, stored or not (yet). */
export type EventReplay = { replayId: string; stored: ReplayView | null };

export interface ReplayServices {
  list(viewer: Viewer, orgSlug: string, input: ReplayListInput): Promise<ReplayListPage>;
  detail(viewer: Viewer, orgSlug: string, replayId: string): Promise<ReplayDetailView>;
  /** The replay an event names (its `replayId` tag or replay context), if it names one. */
  forEvent(viewer: Viewer, orgSlug: string, event: { contexts?: Record<string, unknown>; tags?: unknown }): Promise<EventReplay | null>;
  /**
   * The first of these error events (in order) that was captured in a stored replay, with its
   * replay: the digest page and a server error's page show the browser session behind a digest.
   */
  forEvents(
    viewer: Viewer,
    orgSlug: string,
    eventIds: string[],
  ): Promise<{ eventId: string; errorAt: number | null; replay: EventReplay } | null>;
  /** Replays of these issues (their linked errors), newest first, at most `limit` per issue. */
  forIssues(viewer: Viewer, orgSlug: string, issueIds: number[], limit: number): Promise<Map<number, ReplayView[]>>;
  // Sentry's REST API
  sentryList(
    viewer: Viewer,
    orgSlug: string,
    params: URLSearchParams,
  ): Promise<{ data: Array<Partial<SentryReplay>>; next: string | null }>;
  sentryGet(viewer: Viewer, orgSlug: string, replayId: string, projectRef?: string): Promise<SentryReplay>;
  remove(viewer: Viewer, orgSlug: string, projectRef: string, replayId: string): Promise<void>;
  segments(
    viewer: Viewer,
    orgSlug: string,
    projectRef: string,
    replayId: string,
    page: { cursor: string | null; perPage: number | null },
  ): Promise<SegmentPage>;
  count(viewer: Viewer, orgSlug: string, params: URLSearchParams): Promise<Record<string, number | string[]>>;
  /** One segment: Sentry's metadata, and its stored bytes (zlib of the rrweb JSON) for the download. */
  segment(viewer: Viewer, orgSlug: string, projectRef: string, replayId: string, segmentId: string): Promise<StoredSegment>;
}

export interface StoredSegment {
  meta: { replayId: string; segmentId: number; projectId: string; dateAdded: string };
  /** the segment's events, zlib-compressed (HTTP's `deflate` coding) */
  zlib: Buffer;
  /** the events as JSON text (inflated in the thread pool), for clients that do not accept deflate */
  json(): Promise<Buffer>;
}

export interface SegmentPage {
  /** `[[events of segment n], …]` as JSON, streamed a segment at a time */
  download(): ReadableStream<Uint8Array>;
  next: string | null;
}

export interface ReplayServiceDeps {
  db: Db;
  access: Access;
  blobs: BlobStore;
  now: () => number;
}

const MAX_PAGE = 100;
const DEFAULT_SEGMENTS_PAGE = 100;

/** Sentry's cursor `<value>:<offset>:<is_prev>`, or a bare offset. */
export function cursorOffset(cursor: string | null | undefined): number {
  if (!cursor) return 0;
  const parts = cursor.split(":");
  const n = Number(parts.length >= 2 ? parts[1] : parts[0]);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

const cursorOf = (offset: number) => `0:${offset}:0`;

function perPage(v: string | null, fallback: number, max: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
}

function normalizeReplayId(id: string): string {
  const v = id.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(v)) throw new AppError("not_found", "Replay not found.");
  return v;
}

export function createReplayServices(deps: ReplayServiceDeps): ReplayServices {
  const { db, access, blobs, now } = deps;

  async function readable(viewer: Viewer, orgSlug: string): Promise<{ org: OrgSummary; projects: Map<number, ProjectRow> }> {
    const org = await access.authorize(viewer, orgSlug, "event.read");
    return { org, projects: await access.projectMap(org) };
  }

  /** The replay, when it is in a project the viewer sees (else not_found, as if it did not exist). */
  async function visibleReplay(projects: Map<number, ProjectRow>, replayId: string): Promise<{ row: ReplayRow; project: ProjectRow }> {
    const row = await getReplay(db, normalizeReplayId(replayId));
    const project = row ? projects.get(Number(row.project_id)) : undefined;
    if (!row || !project) throw new AppError("not_found", "Replay not found.");
    return { row, project };
  }

  async function inProject(viewer: Viewer, orgSlug: string, projectRef: string, replayId: string, action: "event.read" | "replay.delete") {
    const { org, project } = await access.projectOrThrow(viewer, orgSlug, projectRef, action);
    const row = await getReplay(db, normalizeReplayId(replayId));
    if (!row || Number(row.project_id) !== project.id) throw new AppError("not_found", "Replay not found.");
    return { org, project, row };
  }

  async function errorIds(row: ReplayRow): Promise<string[]> {
    return (await replayErrorLinks(db, row.replay_id)).map((e) => e.eventId);
  }

  function view(row: ReplayRow, project: ProjectRow, errors: string[] = []): ReplayView {
    return {
      replay: sentryReplay(row, errors),
      projectSlug: project.slug,
      startedAt: Number(row.started_at),
      finishedAt: Number(row.finished_at),
    };
  }

  async function query(projects: Map<number, ProjectRow>, input: ReplayListInput & { search: ReplaySearch }) {
    let ids = [...projects.keys()];
    if (input.projects?.length) {
      const wanted = new Set(input.projects);
      ids = ids.filter((id) => wanted.has(projects.get(id)?.slug ?? "") || wanted.has(String(id)));
    }
    const search = input.search;
    if (input.environments?.length)
      search.filters.push({ kind: "text", columns: ["environment"], values: input.environments, negated: false });
    const limit = Math.max(1, Math.min(input.limit ?? 50, MAX_PAGE));
    const offset = Math.max(0, input.offset ?? 0);
    const rows = await searchReplays(db, {
      projectIds: ids,
      search,
      range: input.range ?? null,
      sort: parseReplaySort(input.sort),
      offset,
      limit,
    });
    return { rows: rows.slice(0, limit), next: rows.length > limit ? offset + limit : null };
  }

  return {
    async list(viewer, orgSlug, input) {
      const { projects } = await readable(viewer, orgSlug);
      const { rows, next } = await query(projects, { ...input, search: parseReplaySearch(input.query) });
      return { rows: rows.map((r) => view(r, projects.get(Number(r.project_id)) as ProjectRow)), next };
    },

    async detail(viewer, orgSlug, replayId) {
      const { org, projects } = await readable(viewer, orgSlug);
      const { row, project } = await visibleReplay(projects, replayId);
      const links = await replayErrorLinks(db, row.replay_id);
      const errors = links.map((e) => {
        const p = projects.get(e.projectId);
        // An error in a project the viewer cannot see is listed without its issue.
        return {
          eventId: e.eventId,
          projectSlug: p?.slug ?? null,
          issueId: p ? e.issueId : null,
          shortId: p && e.shortId !== null ? formatShortId(p.slug, e.shortId) : null,
          title: p ? e.title : null,
          level: p ? e.level : null,
          timestamp: e.timestamp,
        };
      });
      const canDelete = permits(org.role, credentialOf(viewer), "replay.delete");
      return {
        ...view(
          row,
          project,
          links.map((e) => e.eventId),
        ),
        segmentIds: await segmentIds(db, row.replay_id),
        errors,
        canDelete,
      };
    },

    async forEvent(viewer, orgSlug, event) {
      const replayId = replayIdOfEvent(event);
      if (!replayId) return null;
      const { projects } = await readable(viewer, orgSlug);
      const row = await getReplay(db, replayId);
      const project = row ? projects.get(Number(row.project_id)) : undefined;
      return { replayId, stored: row && project ? { ...view(row, project), segmentIds: await segmentIds(db, replayId) } : null };
    },

    async forEvents(viewer, orgSlug, eventIds) {
      if (eventIds.length === 0) return null;
      const { projects } = await readable(viewer, orgSlug);
      const found = await replaysOfEvents(db, [...projects.keys()], eventIds.slice(0, 200));
      for (const eventId of eventIds) {
        const link = found.get(eventId);
        if (!link) continue;
        const row = await getReplay(db, link.replayId);
        const project = row ? projects.get(Number(row.project_id)) : undefined;
        if (row && project)
          return {
            eventId,
            errorAt: link.timestamp,
            replay: { replayId: link.replayId, stored: { ...view(row, project), segmentIds: await segmentIds(db, link.replayId) } },
          };
      }
      return null;
    },

    async forIssues(viewer, orgSlug, issueIds, limit) {
      const { projects } = await readable(viewer, orgSlug);
      const byIssue = await replayIdsByIssue(db, [...projects.keys()], issueIds, null);
      const wanted = [...new Set([...byIssue.values()].flatMap((ids) => ids.slice(0, limit)))];
      const rows = new Map((await replaysByIds(db, [...projects.keys()], wanted)).map((r) => [r.replay_id, r]));
      const out = new Map<number, ReplayView[]>();
      for (const [issueId, ids] of byIssue) {
        const views = ids
          .slice(0, limit)
          .map((id) => rows.get(id))
          .filter((r): r is ReplayRow => r !== undefined)
          .map((r) => view(r, projects.get(Number(r.project_id)) as ProjectRow));
        out.set(issueId, views);
      }
      return out;
    },

    async sentryList(viewer, orgSlug, params) {
      const { projects } = await readable(viewer, orgSlug);
      // `project` ids (-1: all), or the CLI's `projectSlug`; `environment` repeated.
      const projectIds = params.getAll("project").filter((p) => p !== "-1" && p !== "");
      const slugs = params.getAll("projectSlug").filter(Boolean);
      const search = parseReplaySearch(params.get("query") ?? "");
      const { rows, next } = await query(projects, {
        query: "",
        search,
        sort: params.get("sort") ?? params.get("orderBy"),
        projects: [...projectIds, ...slugs],
        environments: params.getAll("environment").filter(Boolean),
        range: timeWindow(params, now()),
        offset: cursorOffset(params.get("cursor")),
        limit: perPage(params.get("per_page") ?? params.get("limit"), 50, MAX_PAGE),
      });
      const fields = params.getAll("field").filter(Boolean);
      const data = [];
      for (const r of rows)
        data.push(pickFields(sentryReplay(r, fields.length === 0 || fields.includes("error_ids") ? await errorIds(r) : []), fields));
      return { data, next: next === null ? null : cursorOf(next) };
    },

    async sentryGet(viewer, orgSlug, replayId, projectRef) {
      if (projectRef !== undefined) {
        const { row } = await inProject(viewer, orgSlug, projectRef, replayId, "event.read");
        return sentryReplay(row, await errorIds(row));
      }
      const { projects } = await readable(viewer, orgSlug);
      const { row } = await visibleReplay(projects, replayId);
      return sentryReplay(row, await errorIds(row));
    },

    async remove(viewer, orgSlug, projectRef, replayId) {
      const { row } = await inProject(viewer, orgSlug, projectRef, replayId, "replay.delete");
      const keys = await writeTx(db, (tx) => deleteReplayRows(tx, row.replay_id));
      // After the commit: a crash in between leaves files the orphan sweep removes.
      await blobs.delete(keys);
    },

    async segments(viewer, orgSlug, projectRef, replayId, page) {
      const { row } = await inProject(viewer, orgSlug, projectRef, replayId, "event.read");
      const offset = cursorOffset(page.cursor);
      const limit = page.perPage && page.perPage > 0 ? Math.min(page.perPage, 1000) : DEFAULT_SEGMENTS_PAGE;
      const rows = await listSegments(db, row.replay_id, { offset, limit: limit + 1 });
      const segs = rows.slice(0, limit);
      return {
        next: rows.length > limit ? cursorOf(offset + limit) : null,
        download: () =>
          segmentStream(
            blobs,
            segs.map((s) => s.blobKey),
          ),
      };
    },

    async segment(viewer, orgSlug, projectRef, replayId, segmentId) {
      const { project, row } = await inProject(viewer, orgSlug, projectRef, replayId, "event.read");
      const n = /^\d{1,7}$/.test(segmentId) ? Number(segmentId) : Number.NaN;
      const seg = Number.isSafeInteger(n) ? await getSegment(db, row.replay_id, n) : undefined;
      const bytes = seg ? await blobs.get(seg.blobKey) : undefined;
      if (!seg || !bytes) throw new AppError("not_found", "Segment not found.");
      return {
        meta: {
          replayId: row.replay_id,
          segmentId: seg.segmentId,
          projectId: String(project.id),
          dateAdded: new Date(seg.startedAt).toISOString(),
        },
        zlib: bytes,
        json: () => inflate(bytes),
      };
    },

    async count(viewer, orgSlug, params) {
      const { projects } = await readable(viewer, orgSlug);
      const returnIds = ["1", "true"].includes((params.get("returnIds") ?? "").toLowerCase());
      const range = timeWindow(params, now());
      const out: Record<string, number | string[]> = {};
      const put = (key: string, ids: string[]) => {
        if (ids.length > 0) out[key] = returnIds ? ids : ids.length;
      };
      for (const term of parseQuery(params.get("query") ?? "").terms) {
        const values = term.values ?? [term.value];
        if (term.key === "issue.id") {
          const issueIds = values.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
          const byIssue = await replayIdsByIssue(db, [...projects.keys()], issueIds, range);
          for (const id of issueIds) put(String(id), byIssue.get(id) ?? []);
        } else if (term.key === "replay_id" || term.key === "id") {
          const ids = values.map((v) => v.replace(/-/g, "").toLowerCase());
          const found = new Set((await replaysByIds(db, [...projects.keys()], ids)).map((r) => r.replay_id));
          for (const id of ids) put(id, found.has(id) ? [id] : []);
        }
        // Other keys Sentry counts by (transaction names, …) have no replays here: an empty answer.
      }
      return out;
    },
  };
}

/** `[` seg, seg, … `]`: each stored segment inflated in the thread pool and sent as it is ready. */
function segmentStream(blobs: BlobStore, keys: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = -1;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i === -1) {
        controller.enqueue(enc.encode("["));
        i = 0;
        if (keys.length === 0) {
          controller.enqueue(enc.encode("]"));
          controller.close();
        }
        return;
      }
      const key = keys[i] as string;
      const stored = await blobs.get(key);
      // A segment deleted meanwhile (retention, a delete) plays as empty rather than failing the rest.
      const json = stored ? await inflate(stored) : Buffer.from("[]");
      controller.enqueue(i === 0 ? new Uint8Array(json) : new Uint8Array(Buffer.concat([Buffer.from(","), json])));
      i += 1;
      if (i >= keys.length) {
        controller.enqueue(enc.encode("]"));
        controller.close();
      }
    },
  });
}
