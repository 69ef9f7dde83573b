/**
 * Next.js digest services: the events sharing a digest across an organization's projects, what a
 * pasted digest opens, and the server ↔ browser links shown on an issue. A digest is a 32-bit hash
 * of message + stack, so it names a recurring error, not one event: links are limited to a window
 * around the issue's own events with that digest.
 */

import { AppError } from "../../core/errors";
import type { NormalizedEvent } from "../../core/event";
import { digestSide, nextjsMetaOf, parseDigest, pastedDigest } from "../../core/nextjs/index";
import type { Db } from "../../storage/db";
import { findEventsByDigest, issueFlags, issueHeads, recentIssueDigests } from "../../storage/events/digests";
import type { StoredEvent } from "../../storage/events/events";
import { getIssue } from "../../storage/issues/issues";
import { listProjectsOfOrg, type ProjectRow } from "../../storage/orgs/projects";
import { visibleProjects } from "../access/visibility";
import type { AppServices } from "../services";
import type { DigestEvent, IssueSummary, OrgSummary, Viewer } from "../types";

/** How far from an issue's own digest events a matching event still counts as linked. */
export const LINK_WINDOW_MS = 7 * 24 * 3600 * 1000;
const LOOKUP_LIMIT = 100;
const LINKED_MAX = 20;

export interface DigestServiceDeps {
  db: Db;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
}

export function createDigestServices(deps: DigestServiceDeps): AppServices["digests"] {
  const { db } = deps;

  async function orgProjects(viewer: Viewer, orgSlug: string): Promise<Map<number, ProjectRow>> {
    deps.requireScope(viewer, "event:read");
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    return new Map(visibleProjects(org, await listProjectsOfOrg(db, org.id)).map((p) => [p.id, p]));
  }

  async function toDigestEvents(rows: StoredEvent[], projects: Map<number, ProjectRow>): Promise<DigestEvent[]> {
    const heads = await issueHeads(db, [...new Set(rows.map((r) => r.issueId))]);
    return rows.map((r) => {
      const meta = nextjsMetaOf(r.event).digest;
      const project = projects.get(r.projectId);
      const slug = project?.slug ?? "unknown";
      const head = heads.get(r.issueId);
      return {
        digest: meta?.value ?? r.digest ?? "",
        key: r.digest ?? meta?.key ?? "",
        side: meta?.side ?? digestSide(r.event as unknown as NormalizedEvent),
        eventId: r.eventId,
        receivedAt: r.receivedAt,
        projectSlug: slug,
        issueId: r.issueId,
        issueShortId: head ? `${slug.toUpperCase()}-${head.shortId}` : "",
        issueTitle: head?.title ?? r.title,
        count: 1,
      };
    });
  }

  return {
    async lookup(viewer, orgSlug, digest) {
      const parsed = parseDigest(digest.trim());
      if (!parsed) throw new AppError("invalid_query", `"${digest.slice(0, 100)}" is not a Next.js digest.`, { position: 0 });
      const projects = await orgProjects(viewer, orgSlug);
      const rows = await findEventsByDigest(db, { projectIds: [...projects.keys()], key: parsed.key, limit: LOOKUP_LIMIT + 1 });
      const events = serverFirst(await toDigestEvents(rows.slice(0, LOOKUP_LIMIT), projects));
      return { key: parsed.key, events, truncated: rows.length > LOOKUP_LIMIT };
    },

    async resolvePasted(viewer, orgSlug, query) {
      const key = pastedDigest(query);
      if (!key) return null;
      const projects = await orgProjects(viewer, orgSlug);
      const rows = await findEventsByDigest(db, { projectIds: [...projects.keys()], key, limit: 50 });
      const events = serverFirst(await toDigestEvents(rows, projects));
      return events[0] ?? null;
    },

    async linkedForIssue(viewer, orgSlug, issueId) {
      const projects = await orgProjects(viewer, orgSlug);
      const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
      if (!issue || !projects.has(issue.projectId)) throw new AppError("not_found", "Issue not found.");
      const byIssue = new Map<number, DigestEvent>();
      for (const d of await recentIssueDigests(db, issue.id)) {
        const rows = await findEventsByDigest(db, {
          projectIds: [...projects.keys()],
          key: d.key,
          from: d.first - LINK_WINDOW_MS,
          to: d.last + LINK_WINDOW_MS,
          excludeIssueId: issue.id,
          limit: 100,
        });
        for (const e of await toDigestEvents(rows, projects)) {
          const seen = byIssue.get(e.issueId);
          // Rows come newest first: the first per issue is its latest linked event.
          if (!seen) byIssue.set(e.issueId, e);
          else if (seen.key === e.key) seen.count += 1;
        }
        if (byIssue.size >= LINKED_MAX) break;
      }
      return serverFirst([...byIssue.values()]).slice(0, LINKED_MAX);
    },
  };
}

/** Server events before client events; within a side, newest first (a stable sort keeps row order). */
function serverFirst(events: DigestEvent[]): DigestEvent[] {
  return [...events].sort((a, b) => (a.side === b.side ? b.receivedAt - a.receivedAt : a.side === "server" ? -1 : 1));
}

/** The summaries with their classification flags (`deploy-skew`), one query for the page. */
export async function withIssueFlags<T extends IssueSummary>(db: Db, issues: T[]): Promise<T[]> {
  const flags = await issueFlags(
    db,
    issues.map((i) => i.id),
  );
  if (flags.size === 0) return issues;
  return issues.map((i) => {
    const f = flags.get(i.id);
    return f ? { ...i, flags: f } : i;
  });
}
