/**
 * services.issueStream: the reads of the triage screens, with authorization (the viewer must be
 * a member; API tokens need `event:read`). The stream page (search + filters + sort + sparklines
 * in a few queries), a pasted event id, autocompletion, the filter menus, the live "N updated"
 * count, the issue page's data in one call, an issue's events, attachment downloads.
 */

import { teamActor, teamRef } from "../../core/assignee";
import { limitDepth, MAX_EVENT_DEPTH } from "../../core/bounded-json";
import { AppError } from "../../core/errors";
import { pickProjectByRef } from "../../core/project-ref";
import {
  compileIssueSearch,
  type IssueSearch,
  parseIssueSearch,
  parseQuery,
  pastedEventId,
  type SearchCondition,
  tagKeysToCheck,
} from "../../core/search/parse-query";
import type { Db } from "../../storage/db";
import { type AttachmentFile, getAttachment, listEventAttachments } from "../../storage/events/attachments";
import { getEvent, getLatestEvent, type StoredEvent } from "../../storage/events/events";
import { issueByShortIdAlias } from "../../storage/import/sentry-import";
import { findUserProfiles, listActivity } from "../../storage/issues/activity";
import { getFirstIssue, getIssue, getIssueByShortId, type IssueRow } from "../../storage/issues/issues";
import { findOrgMember } from "../../storage/issues/lifecycle";
import { countActiveSince, type IssueSort, type SearchedIssue, type StorageCondition, searchIssues } from "../../storage/issues/search";
import {
  bucketCounts,
  existingTagKeys,
  HOUR_MS,
  issuesWithTagKey,
  type TagDistribution,
  tagDistribution,
  tagKeySuggestions,
  tagValueSuggestions,
} from "../../storage/issues/stats";
import {
  type EventFilter,
  type EventNavigation,
  eventNavigation,
  findEventIssue,
  listIssueFeedback,
  listOrgMembers,
  oldestEventId,
  searchIssueEvents,
} from "../../storage/issues/triage-reads";
import { listTeams } from "../../storage/members/teams";
import type { ProjectRow } from "../../storage/orgs/projects";
import type { ActivityItem, EventDetail, IssueDetail, IssueSummary, OrgSummary, Page, Role, UserRef, Viewer } from "../types";
import { toIssueSummary } from "./shapes";

export type { IssueSort } from "../../storage/issues/search";
export type { TagDistribution } from "../../storage/issues/stats";
export type { EventNavigation } from "../../storage/issues/triage-reads";

export const SORTS: IssueSort[] = ["date", "new", "freq", "user"];
export type StatsPeriod = "24h" | "14d";
export type StatusFilter = "unresolved" | "resolved" | "ignored" | "regressed" | "all";

export interface StreamQuery {
  /** search text (SPEC §2 language) */
  query?: string;
  /** filter menus; combined with the query (AND) */
  project?: string;
  environment?: string;
  release?: string;
  level?: string;
  /** absent: `unresolved` unless the query has an `is:` status term; `all`: no status filter */
  status?: StatusFilter;
  /** `me`, `none` or a member's email / user id */
  assigned?: string;
  sort?: IssueSort;
  /** the sparkline's period (default 24h) */
  stats?: StatsPeriod;
  /** Sentry's `project=` ids (REST): only these of the visible projects */
  projectIds?: number[];
  /** Sentry's repeatable `environment=` (REST): any of these */
  environments?: string[];
  /** Sentry's `statsPeriod`/`start`+`end` (REST): issues seen in this window (epoch ms) */
  seenWithin?: { start: number; end: number };
  cursor?: string | null;
  limit?: number;
}

export interface StreamIssue extends IssueSummary {
  /** events per bucket, oldest first (24 hours or 14 days) */
  spark: number[];
  /** some event of the issue carried a Next.js digest */
  hasDigest: boolean;
}

export interface StreamPage {
  items: StreamIssue[];
  nextCursor: string | null;
  period: StatsPeriod;
  /** epoch ms of the first sparkline bucket, and the bucket width */
  sparkStart: number;
  bucketMs: number;
  /** the status filter that applied (`all` when none) */
  status: StatusFilter;
  /** the viewer's role in the org (what the page may offer: delete needs admin) */
  role: Role;
}

export interface FilterOptions {
  environments: string[];
  releases: string[];
  members: UserRef[];
}

export interface AttachmentRef {
  id: number;
  name: string;
  contentType: string;
  size: number;
}

export interface IssueFeedback {
  id: number;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  createdAt: number;
}

export interface IssuePageData {
  issue: IssueDetail;
  role: Role;
  /** the chosen (or latest) event; null when retention removed them all */
  event: EventDetail | null;
  nav: EventNavigation;
  /** events per hour over the last 14 days, and per day over the last 90 (oldest first) */
  trend: { hourly: number[]; hourlyStart: number; daily: number[]; dailyStart: number };
  tags: TagDistribution[];
  activity: ActivityItem[];
  feedback: IssueFeedback[];
  attachments: AttachmentRef[];
  members: UserRef[];
  hasDigest: boolean;
}

export interface EventSummary {
  eventId: string;
  receivedAt: number;
  level: string;
  release: string | null;
  environment: string | null;
  title: string;
  userKey: string | null;
  digest: string | null;
}

export interface IssueStreamServices {
  /** A page of the stream with sparklines; throws `invalid_query` (with position) for a bad query. */
  list(viewer: Viewer, orgSlug: string, q: StreamQuery): Promise<StreamPage>;
  /** The same search without sparklines or default status (REST and services.issues.list). */
  search(viewer: Viewer, orgSlug: string, q: StreamQuery): Promise<Page<IssueSummary & { flags?: string[] }>>;
  /** The project's first issue (the one its first event opened), for the onboarding; null before any event. */
  firstIssue(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<IssueSummary | null>;
  /** A query that is a bare event id (32 hex) or short id (`WEB-42`): the issue holding it, else null. */
  openPasted(viewer: Viewer, orgSlug: string, query: string): Promise<{ issueId: number; eventId: string | null } | null>;
  /** Autocompletion: tag keys (no `key`) or the values of one key, from the projects' data. */
  suggest(viewer: Viewer, orgSlug: string, q: { key?: string; prefix?: string; project?: string }): Promise<string[]>;
  filterOptions(viewer: Viewer, orgSlug: string, q: { project?: string }): Promise<FilterOptions>;
  /** Issues with events after `since` (live updates). */
  changesSince(
    viewer: Viewer,
    orgSlug: string,
    q: { since: number; project?: string },
  ): Promise<{ updated: number; created: number; lastSeen: number }>;
  /** Everything the issue page shows, read in parallel. `event`: an event id, `oldest` or `latest` (default). */
  issuePage(viewer: Viewer, orgSlug: string, issueId: number, opts?: { event?: string }): Promise<IssuePageData>;
  /** An issue's events, newest first, filtered by level/environment/release/user/text. */
  events(
    viewer: Viewer,
    orgSlug: string,
    issueId: number,
    q: { query?: string; cursor?: string | null; limit?: number },
  ): Promise<Page<EventSummary>>;
  /** One attachment of one of the issue's events (for download). */
  attachment(viewer: Viewer, orgSlug: string, issueId: number, eventId: string, attachmentId: number): Promise<AttachmentFile>;
}

export interface IssueStreamDeps {
  db: Db;
  now: () => number;
  membership(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  /** the org's projects this viewer may see (teams) */
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
  toSummary(row: IssueRow, projects: Map<number, ProjectRow>): IssueSummary;
  toDetail(row: IssueRow, projects: Map<number, ProjectRow>): Promise<IssueDetail>;
  toEventDetail(ev: StoredEvent, projects: Map<number, ProjectRow>): EventDetail;
}

const DAY_MS = 24 * HOUR_MS;
const KEY_CACHE_MS = 60_000;
const OPTIONS_CACHE_MS = 15_000;

function encodeCursor(sort: string, c: { value: number; id: number }): string {
  return Buffer.from(`${sort}:${c.value}:${c.id}`).toString("base64url");
}

function decodeCursor(sort: string, cursor: string | null | undefined): { value: number; id: number } | null {
  if (!cursor) return null;
  const m = Buffer.from(cursor, "base64url")
    .toString()
    .match(/^(\w+):(-?\d+):(\d+)$/);
  if (!m || m[1] !== sort)
    throw new AppError("validation_failed", "Invalid cursor.", {
      fields: [{ field: "cursor", rule: "format", message: "not a cursor of this list and sort" }],
    });
  return { value: Number(m[2]), id: Number(m[3]) };
}

function invalid(message: string): AppError {
  return new AppError("invalid_query", message, { position: 0 });
}

/** Filter-menu values as the conditions the query language would give. */
function menuConditions(q: StreamQuery): SearchCondition[] {
  const out: SearchCondition[] = [];
  if (q.environment) out.push({ kind: "tag", key: "environment", values: [q.environment], negated: false });
  if (q.environments?.length) out.push({ kind: "tag", key: "environment", values: q.environments, negated: false });
  if (q.seenWithin) {
    out.push({ kind: "time", field: "lastSeen", op: "gte", at: q.seenWithin.start });
    out.push({ kind: "time", field: "firstSeen", op: "lte", at: q.seenWithin.end });
  }
  if (q.release) out.push({ kind: "tag", key: "release", values: [q.release], negated: false });
  if (q.level) {
    if (!["fatal", "error", "warning", "info", "debug"].includes(q.level)) throw invalid(`Unknown level "${q.level}".`);
    out.push({ kind: "level", values: [q.level], negated: false });
  }
  if (q.assigned) out.push({ kind: "assigned", values: [q.assigned], negated: false });
  return out;
}

function statusConditions(
  search: IssueSearch,
  status: StatusFilter | undefined,
  withDefault: boolean,
): { conditions: SearchCondition[]; applied: StatusFilter } {
  if (status && status !== "all") return { conditions: [{ kind: "status", values: [status], negated: false }], applied: status };
  if (status === "all" || !withDefault || search.mentionsStatus) return { conditions: [], applied: "all" };
  return { conditions: [{ kind: "status", values: ["unresolved"], negated: false }], applied: "unresolved" };
}

export function createIssueStream(deps: IssueStreamDeps): IssueStreamServices {
  const { db } = deps;
  const keyCache = new Map<string, { at: number; keys: string[] }>();
  const optionsCache = new Map<string, { at: number; options: FilterOptions }>();

  async function orgAndProjects(viewer: Viewer, orgSlug: string) {
    deps.requireScope(viewer, "event:read");
    const org = await deps.membership(viewer, orgSlug);
    return { org, projects: await deps.projectsOf(org) };
  }

  /** Who an issue can be assigned to: the org's members, then its teams (`#slug`). */
  async function assignables(orgId: number): Promise<UserRef[]> {
    const [members, teams] = await Promise.all([listOrgMembers(db, orgId), listTeams(db, orgId)]);
    return [...members.map((m) => ({ id: m.id, email: m.email, name: m.name })), ...teams.map(teamRef)];
  }

  function projectIdsFor(projects: Map<number, ProjectRow>, slug: string | undefined, ids?: number[]): number[] {
    const all = [...projects.values()];
    const named = slug ? pickProjectByRef(all, slug) : undefined;
    return (slug ? all.filter((p) => p === named) : all).filter((p) => !ids || ids.includes(p.id)).map((p) => p.id);
  }

  async function resolveAssignee(org: OrgSummary, viewer: Viewer, value: string): Promise<string | null> {
    const v = value.trim();
    if (v.toLowerCase() === "me") return viewer.userId;
    if (v.toLowerCase() === "none") return null;
    if (v.startsWith("#")) {
      const team = (await listTeams(db, org.id)).find((t) => t.slug === v.slice(1).toLowerCase());
      if (!team) throw invalid(`No team of this organization is "${v}".`);
      return teamActor(team.id);
    }
    const member = await findOrgMember(db, org.id, v.startsWith("user:") ? v.slice(5) : v);
    if (!member) throw invalid(`No member of this organization is "${v}" (assigned: takes me, none, a member's email or #team).`);
    return member.id;
  }

  /** Conditions for storage: projects narrowed, assignees resolved. */
  async function toStorage(
    org: OrgSummary,
    viewer: Viewer,
    projects: Map<number, ProjectRow>,
    conditions: SearchCondition[],
    projectSlug: string | undefined,
    onlyIds?: number[],
  ): Promise<{ projectIds: number[]; conditions: StorageCondition[] }> {
    let projectIds = projectIdsFor(projects, projectSlug, onlyIds);
    const out: StorageCondition[] = [];
    for (const c of conditions) {
      if (c.kind === "project") {
        const ids = new Set([...projects.values()].filter((p) => c.values.includes(p.slug.toLowerCase())).map((p) => p.id));
        projectIds = projectIds.filter((id) => ids.has(id) !== c.negated);
      } else if (c.kind === "assigned") {
        const userIds = await Promise.all(c.values.map((v) => resolveAssignee(org, viewer, v)));
        out.push({ kind: "assigned", userIds, negated: c.negated });
      } else out.push(c);
    }
    return { projectIds, conditions: out };
  }

  async function runSearch(viewer: Viewer, orgSlug: string, q: StreamQuery, withDefaultStatus: boolean) {
    const sort = q.sort ?? "date";
    if (!SORTS.includes(sort)) throw invalid(`Unknown sort "${sort}": use date, new, freq or user.`);
    const { org, projects } = await orgAndProjects(viewer, orgSlug);
    // Keys that are not the language's own must be tags these projects have (else a positioned error).
    const parsed = parseQuery(q.query ?? "");
    const unknown = tagKeysToCheck(parsed);
    const known =
      unknown.length > 0 ? await existingTagKeys(db, projectIdsFor(projects, q.project || undefined, q.projectIds), unknown) : undefined;
    const search = compileIssueSearch(parsed, deps.now(), known ?? new Set());
    const status = statusConditions(search, q.status, withDefaultStatus);
    const { projectIds, conditions } = await toStorage(
      org,
      viewer,
      projects,
      [...status.conditions, ...menuConditions(q), ...search.conditions],
      q.project || undefined,
      q.projectIds,
    );
    const limit = Math.min(Math.max(q.limit ?? 50, 1), 100);
    const page = await searchIssues(db, { projectIds, conditions, sort, limit, cursor: decodeCursor(sort, q.cursor) });
    const items = page.items.map((r: SearchedIssue) => {
      const s = deps.toSummary(r, projects);
      return r.flags.length > 0 ? { ...s, flags: r.flags } : s;
    });
    return { items, nextCursor: page.nextCursor ? encodeCursor(sort, page.nextCursor) : null, status: status.applied, role: org.role };
  }

  async function issueIn(viewer: Viewer, orgSlug: string, issueId: number) {
    const { org, projects } = await orgAndProjects(viewer, orgSlug);
    const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
    if (!issue || !projects.has(issue.projectId)) throw new AppError("not_found", "Issue not found.");
    return { org, projects, issue };
  }

  /** The event shown, depth-bounded: events stored before the normaliser bounded depth would overflow rendering. */
  async function chosenEvent(issue: IssueRow, which: string | undefined): Promise<StoredEvent | undefined> {
    const ev = await chosenStoredEvent(issue, which);
    return ev ? { ...ev, event: limitDepth(ev.event, MAX_EVENT_DEPTH).value as StoredEvent["event"] } : undefined;
  }

  async function chosenStoredEvent(issue: IssueRow, which: string | undefined): Promise<StoredEvent | undefined> {
    if (!which || which === "latest") return getLatestEvent(db, issue.id);
    if (which === "oldest") {
      const first = await oldestEventId(db, issue.id);
      return first ? getEvent(db, issue.projectId, first) : undefined;
    }
    const id = which.replace(/-/g, "").toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(id)) throw new AppError("not_found", "Event not found.");
    const ev = await getEvent(db, issue.projectId, id);
    if (!ev || ev.issueId !== issue.id) throw new AppError("not_found", "Event not found in this issue.");
    return ev;
  }

  async function activityOf(issueId: number): Promise<ActivityItem[]> {
    const rows = await listActivity(db, issueId, { limit: 200 });
    const profiles = await findUserProfiles(
      db,
      rows.map((r) => r.actorUserId).filter((id): id is string => id !== null),
    );
    return rows.map((r) => ({
      id: r.id,
      issueId: r.issueId,
      kind: r.kind,
      actor: r.actorUserId === null ? null : (profiles.get(r.actorUserId) ?? { id: r.actorUserId, email: "", name: "Former member" }),
      data: r.data,
      createdAt: r.createdAt,
    }));
  }

  return {
    async list(viewer, orgSlug, q) {
      const period: StatsPeriod = q.stats === "14d" ? "14d" : "24h";
      const res = await runSearch(viewer, orgSlug, q, true);
      const bucketMs = period === "14d" ? DAY_MS : HOUR_MS;
      const buckets = period === "14d" ? 14 : 24;
      // Buckets end with the current hour (24h) or UTC day (14d), inclusive, as Sentry's `stats`:
      // whole UTC days are read from the daily rollup (14 rows an issue, not 336 hourly ones).
      const sparkStart = Math.floor(deps.now() / bucketMs) * bucketMs + bucketMs - bucketMs * buckets;
      const ids = res.items.map((i) => i.id);
      const [sparks, digests] = await Promise.all([
        bucketCounts(db, ids, sparkStart, bucketMs, buckets),
        issuesWithTagKey(db, ids, "digest"),
      ]);
      return {
        items: res.items.map((i) => ({ ...i, spark: sparks.get(i.id) ?? [], hasDigest: digests.has(i.id) })),
        nextCursor: res.nextCursor,
        period,
        sparkStart,
        bucketMs,
        status: res.status,
        role: res.role,
      };
    },

    async search(viewer, orgSlug, q) {
      const res = await runSearch(viewer, orgSlug, q, false);
      return { items: res.items, nextCursor: res.nextCursor };
    },

    async firstIssue(viewer, orgSlug, projectSlug) {
      const { projects } = await orgAndProjects(viewer, orgSlug);
      const project = pickProjectByRef(projects.values(), projectSlug);
      if (!project) throw new AppError("not_found", "Project not found.");
      const row = await getFirstIssue(db, project.id);
      return row ? toIssueSummary(row, projects) : null;
    },

    async openPasted(viewer, orgSlug, query) {
      const eventId = pastedEventId(query);
      // Errata's decimal number, or the base-32 suffix of a Sentry id an import could not keep.
      const short = /^\s*([A-Za-z0-9][\w-]*)-([0-9A-Za-z]{1,13})\s*$/.exec(query);
      if (!eventId && !short) return null;
      const { projects } = await orgAndProjects(viewer, orgSlug);
      if (eventId) {
        const found = await findEventIssue(db, [...projects.keys()], eventId);
        return found ? { issueId: found.issueId, eventId } : null;
      }
      // A short id (`WEB-42`): the project whose slug it starts with.
      const [, slug = "", num = ""] = short ?? [];
      const project = [...projects.values()].find((p) => p.slug.toLowerCase() === slug.toLowerCase());
      if (!project) return null;
      const issue = /^\d{1,9}$/.test(num) ? await getIssueByShortId(db, project.id, Number(num)) : undefined;
      if (issue) return { issueId: issue.id, eventId: null };
      const aliased = await issueByShortIdAlias(db.kysely, project.orgId, project.slug, num);
      return aliased !== undefined ? { issueId: aliased, eventId: null } : null;
    },

    async suggest(viewer, orgSlug, q) {
      const { projects } = await orgAndProjects(viewer, orgSlug);
      const projectIds = projectIdsFor(projects, q.project || undefined);
      if (!q.key) {
        const cacheKey = projectIds.join(",");
        const hit = keyCache.get(cacheKey);
        if (hit && deps.now() - hit.at < KEY_CACHE_MS) return hit.keys;
        const keys = await tagKeySuggestions(db, projectIds);
        keyCache.set(cacheKey, { at: deps.now(), keys });
        if (keyCache.size > 500) keyCache.delete(keyCache.keys().next().value as string);
        return keys;
      }
      if (q.key === "project") return [...projects.values()].map((p) => p.slug).filter((s) => s.startsWith(q.prefix ?? ""));
      const key = q.key === "env" ? "environment" : q.key;
      const rows = await tagValueSuggestions(db, { projectIds, key, prefix: (q.prefix ?? "").slice(0, 200), limit: 10 });
      return rows.map((r) => r.value);
    },

    async filterOptions(viewer, orgSlug, q) {
      const { org, projects } = await orgAndProjects(viewer, orgSlug);
      const projectIds = projectIdsFor(projects, q.project || undefined);
      // The menus change slowly and every stream view needs them: reuse them for a few seconds.
      const cacheKey = `${org.id}:${projectIds.join(",")}`;
      const hit = optionsCache.get(cacheKey);
      if (hit && deps.now() - hit.at < OPTIONS_CACHE_MS) return hit.options;
      const [environments, releases, members] = await Promise.all([
        tagValueSuggestions(db, { projectIds, key: "environment", prefix: "", limit: 30 }),
        tagValueSuggestions(db, { projectIds, key: "release", prefix: "", limit: 30 }),
        assignables(org.id),
      ]);
      const options = {
        environments: environments.map((e) => e.value).sort(),
        releases: releases.map((r) => r.value),
        members,
      };
      optionsCache.set(cacheKey, { at: deps.now(), options });
      if (optionsCache.size > 500) optionsCache.delete(optionsCache.keys().next().value as string);
      return options;
    },

    async changesSince(viewer, orgSlug, q) {
      const { projects } = await orgAndProjects(viewer, orgSlug);
      return countActiveSince(db, projectIdsFor(projects, q.project || undefined), q.since);
    },

    async issuePage(viewer, orgSlug, issueId, opts = {}) {
      const { org, projects, issue } = await issueIn(viewer, orgSlug, issueId);
      const now = deps.now();
      const hourlyStart = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS - 14 * DAY_MS;
      const dailyStart = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS - 90 * DAY_MS;
      const [detail, stored, hourly, daily, tags, activity, feedback, members, digest] = await Promise.all([
        deps.toDetail(issue, projects),
        chosenEvent(issue, opts.event),
        bucketCounts(db, [issue.id], hourlyStart, HOUR_MS, 14 * 24),
        bucketCounts(db, [issue.id], dailyStart, DAY_MS, 90),
        tagDistribution(db, issue.id),
        activityOf(issue.id),
        listIssueFeedback(db, issue),
        assignables(org.id),
        issuesWithTagKey(db, [issue.id], "digest"),
      ]);
      const [nav, attachments] = stored
        ? await Promise.all([
            eventNavigation(db, { issueId: issue.id, receivedAt: stored.receivedAt, id: stored.id }),
            listEventAttachments(db, issue.projectId, stored.eventId),
          ])
        : [{ first: null, older: null, newer: null, latest: null }, []];
      return {
        issue: detail,
        role: org.role,
        event: stored ? deps.toEventDetail(stored, projects) : null,
        nav,
        trend: { hourly: hourly.get(issue.id) ?? [], hourlyStart, daily: daily.get(issue.id) ?? [], dailyStart },
        tags,
        activity,
        feedback,
        attachments: attachments.map((a) => ({ id: a.id, name: a.name, contentType: a.contentType, size: a.size })),
        members,
        hasDigest: digest.has(issue.id),
      };
    },

    async events(viewer, orgSlug, issueId, q) {
      const { issue } = await issueIn(viewer, orgSlug, issueId);
      const filters = eventFilters(parseIssueSearch(q.query ?? "", deps.now()));
      const cursor = decodeCursor("events", q.cursor);
      const page = await searchIssueEvents(db, {
        issueId: issue.id,
        filters,
        limit: Math.min(Math.max(q.limit ?? 50, 1), 100),
        cursor: cursor ? { receivedAt: cursor.value, id: cursor.id } : null,
      });
      return {
        items: page.items.map((e) => ({
          eventId: e.eventId,
          receivedAt: e.receivedAt,
          level: e.level,
          release: e.release,
          environment: e.environment,
          title: e.title,
          userKey: e.userKey,
          digest: e.digest,
        })),
        nextCursor: page.nextCursor ? encodeCursor("events", { value: page.nextCursor.receivedAt, id: page.nextCursor.id }) : null,
      };
    },

    async attachment(viewer, orgSlug, issueId, eventId, attachmentId) {
      const { issue } = await issueIn(viewer, orgSlug, issueId);
      const ev = await getEvent(db, issue.projectId, eventId);
      const file = ev && ev.issueId === issue.id ? await getAttachment(db, issue.projectId, ev.eventId, attachmentId) : undefined;
      if (!file) throw new AppError("not_found", "Attachment not found.");
      return file;
    },
  };
}

const EVENT_COLUMNS: Record<string, "environment" | "release" | "digest"> = { environment: "environment", release: "release" };

/** The subset of the language the events list understands (event columns). */
function eventFilters(search: IssueSearch): EventFilter[] {
  const out: EventFilter[] = [];
  for (const c of search.conditions) {
    if (c.kind === "level") out.push(c);
    else if (c.kind === "text") out.push(c);
    else if (c.kind === "has" && c.key === "user") out.push({ kind: "has_user", negated: c.negated });
    else if (c.kind === "digest") out.push({ kind: "column", column: "digest", values: c.values, negated: c.negated });
    else if (c.kind === "tag" && EVENT_COLUMNS[c.key] && !c.values.some((v) => v.includes("*")))
      out.push({ kind: "column", column: EVENT_COLUMNS[c.key] as "environment" | "release", values: c.values, negated: c.negated });
    else if (c.kind === "tag" && (c.key === "user" || c.key === "user.email"))
      out.push({
        kind: "column",
        column: "user_key",
        values: c.values.map((v) => (c.key === "user.email" ? `email:${v}` : v)),
        negated: c.negated,
      });
    else if (c.kind === "time" && c.field === "lastSeen") out.push({ kind: "received", op: c.op, at: c.at });
    else
      throw invalid(
        "Events can be filtered by level:, environment:, release:, user.email:, user.id:, has:user, digest:, lastSeen: and free text.",
      );
  }
  return out;
}
