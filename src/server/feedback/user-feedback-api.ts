/**
 * Sentry's `…/projects/{org}/{project}/user-feedback/` (issue 10): list and create user reports
 * over REST, stored where the SDKs' `user_report` items go (one report per event, the latest kept).
 * Reading needs event:read; creating needs event:write (or project:write) and a role above viewer.
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { type FeedbackRow, listFeedback, upsertFeedback } from "../../storage/feedback/feedback";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import { sentryUserReport } from "../sentry-api/shapes/user-report";
import type { OrgSummary, ProjectSummary, Viewer } from "../types";

export type SentryUserReport = ReturnType<typeof sentryUserReport>;

export interface UserFeedbackApi {
  list(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<SentryUserReport[]>;
  create(viewer: Viewer, orgSlug: string, projectSlug: string, body: unknown): Promise<SentryUserReport>;
  /** `issue.category:feedback` on the org issue list: each report as Sentry's feedback issue. */
  feedbackIssues(viewer: Viewer, orgSlug: string, q: FeedbackIssueQuery): Promise<SentryFeedbackIssue[]>;
}

export interface FeedbackIssueQuery {
  /** null: every project the viewer may see */
  projectIds: number[] | null;
  range: { start: number; end: number } | null;
  /** the rest of the search (status terms and free text are honoured) */
  query: string;
  limit: number;
  publicUrl: string;
}

export type SentryFeedbackIssue = ReturnType<typeof feedbackIssue>;

/**
 * A report as Sentry lists a feedback issue. The id is not numeric (`feedback.<n>`): Errata keeps
 * feedback apart from issues, and a number would name an unrelated issue to a client that acts on it.
 */
function feedbackIssue(r: FeedbackRow, project: ProjectRow, orgSlug: string, publicUrl: string) {
  const at = new Date(r.createdAt).toISOString();
  return {
    id: `feedback.${r.id}`,
    shortId: `${project.slug.toUpperCase()}-FEEDBACK-${r.id}`,
    title: "User Feedback",
    culprit: r.url ?? "user",
    permalink: `${publicUrl}/${orgSlug}/feedback`,
    logger: null,
    level: "info",
    status: "unresolved",
    statusDetails: {},
    substatus: "new",
    isPublic: false,
    platform: project.platform,
    project: { id: String(project.id), slug: project.slug, name: project.name },
    type: "generic",
    issueType: "feedback",
    issueCategory: "feedback",
    metadata: {
      title: "User Feedback",
      value: r.comments,
      message: r.comments,
      name: r.name || null,
      contact_email: r.email || null,
      source: r.source,
      url: r.url,
      associated_event_id: r.eventId,
    },
    numComments: 0,
    assignedTo: null,
    isBookmarked: false,
    isSubscribed: false,
    hasSeen: false,
    annotations: [],
    count: "1",
    userCount: r.email ? 1 : 0,
    firstSeen: at,
    lastSeen: at,
  };
}

/** Feedback is open until resolved, and Errata does not resolve it: a status other than open lists none. */
const CLOSED_STATUS = /(^|\s)(is|status):(resolved|ignored|archived|spam)(\s|$)/i;

export interface UserFeedbackApiDeps {
  db: Db;
  now: () => number;
  getProject(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSummary>;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

const reportSchema = z.object({
  event_id: z
    .string()
    .transform((s) => s.replace(/-/g, "").toLowerCase())
    .pipe(z.string().regex(/^[0-9a-f]{32}$/, "a 32-character hex event id")),
  name: z.string().trim().max(128).default(""),
  email: z.string().trim().max(75).default(""),
  comments: z.string().trim().min(1).max(4096),
});

export function createUserFeedbackApi(deps: UserFeedbackApiDeps): UserFeedbackApi {
  const { db } = deps;
  return {
    async list(viewer, orgSlug, projectSlug) {
      requirePermission(viewer, await deps.membershipOrThrow(viewer, orgSlug), "event.read");
      const project = await deps.getProject(viewer, orgSlug, projectSlug);
      return (await listFeedback(db, { projectIds: [project.id], limit: 100 })).map(sentryUserReport);
    },

    async feedbackIssues(viewer, orgSlug, q) {
      const org = await deps.membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "event.read");
      const visible = await deps.projectsOf(org);
      if (CLOSED_STATUS.test(q.query)) return [];
      const projectIds = q.projectIds ? q.projectIds.filter((id) => visible.has(id)) : [...visible.keys()];
      const words = q.query
        .split(/\s+/)
        .filter((w) => w !== "" && !w.includes(":"))
        .map((w) => w.replace(/^"|"$/g, "").toLowerCase());
      const rows = await listFeedback(db, { projectIds, range: q.range ?? undefined, limit: words.length > 0 ? 1000 : q.limit });
      return rows
        .filter((r) => words.every((w) => `${r.comments}\n${r.name}\n${r.email}`.toLowerCase().includes(w)))
        .slice(0, q.limit)
        .flatMap((r) => {
          const project = visible.get(r.projectId);
          return project ? [feedbackIssue(r, project, orgSlug, q.publicUrl)] : [];
        });
    },

    async create(viewer, orgSlug, projectSlug, body) {
      requirePermission(viewer, await deps.membershipOrThrow(viewer, orgSlug), "feedback.create");
      const project = await deps.getProject(viewer, orgSlug, projectSlug);
      const r = validate(reportSchema, body);
      await writeTx(db, (tx) =>
        upsertFeedback(tx, {
          projectId: project.id,
          feedbackId: r.event_id,
          eventId: r.event_id,
          name: r.name,
          email: r.email,
          comments: r.comments,
          url: null,
          source: "user_report",
          createdAt: deps.now(),
        }),
      );
      const [row] = await listFeedback(db, { projectIds: [project.id], eventId: r.event_id, limit: 1 });
      if (!row) throw new AppError("not_found", "Feedback not found.");
      return sentryUserReport(row);
    },
  };
}
