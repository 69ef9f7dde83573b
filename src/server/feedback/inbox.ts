/**
 * The feedback inbox: what end users wrote (the SDK's feedback widget, `captureFeedback`, the
 * crash-report dialog, legacy user reports) across the organization's projects, newest first,
 * with the issue each report is about. Every member reads it; tokens need `event:read`.
 */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import type { FeedbackSource } from "../../storage/feedback/feedback";
import { listInbox } from "../../storage/feedback/inbox";
import type { ProjectRow } from "../../storage/orgs/projects";
import type { OrgSummary, Page, Viewer } from "../types";

export interface FeedbackItem {
  id: number;
  projectSlug: string;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  source: FeedbackSource;
  createdAt: number;
  /** the issue of the reported event, when that event is stored */
  issue: { id: number; shortId: string; title: string; level: string } | null;
  /** the session replay the report names (the feedback widget sends the user's replay) */
  replayId: string | null;
}

export interface FeedbackServices {
  list(viewer: Viewer, orgSlug: string, q?: { project?: string; cursor?: string | null; limit?: number }): Promise<Page<FeedbackItem>>;
}

export interface FeedbackServiceDeps {
  db: Db;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  /** the org's projects this viewer may see (teams) */
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

function decodeCursor(cursor: string | null | undefined): { createdAt: number; id: number } | null {
  if (!cursor) return null;
  const m = Buffer.from(cursor, "base64url")
    .toString()
    .match(/^(\d+):(\d+)$/);
  if (!m)
    throw new AppError("validation_failed", "Invalid cursor.", {
      fields: [{ field: "cursor", rule: "format", message: "not a cursor from this page" }],
    });
  return { createdAt: Number(m[1]), id: Number(m[2]) };
}

export function createFeedbackServices(deps: FeedbackServiceDeps): FeedbackServices {
  const { db, membershipOrThrow, requireScope, projectsOf } = deps;
  return {
    async list(viewer, orgSlug, q = {}) {
      requireScope(viewer, "event:read");
      const org = await membershipOrThrow(viewer, orgSlug);
      const projects = await projectsOf(org);
      let projectIds = [...projects.keys()];
      if (q.project) {
        const p = [...projects.values()].find((x) => x.slug === q.project);
        if (!p) throw new AppError("not_found", "Project not found.");
        projectIds = [p.id];
      }
      const limit = Math.max(1, Math.min(q.limit ?? 50, 100));
      const rows = await listInbox(db, { projectIds, cursor: decodeCursor(q.cursor), limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map((r) => {
          const slug = projects.get(r.projectId)?.slug ?? "unknown";
          return {
            id: r.id,
            projectSlug: slug,
            eventId: r.eventId,
            name: r.name,
            email: r.email,
            comments: r.comments,
            url: r.url,
            source: r.source,
            createdAt: r.createdAt,
            replayId: r.replayId,
            issue: r.issue
              ? { id: r.issue.id, shortId: `${slug.toUpperCase()}-${r.issue.shortId}`, title: r.issue.title, level: r.issue.level }
              : null,
          };
        }),
        nextCursor: rows.length > limit && last ? Buffer.from(`${last.createdAt}:${last.id}`).toString("base64url") : null,
      };
    },
  };
}
