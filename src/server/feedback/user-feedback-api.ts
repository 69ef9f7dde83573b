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
import { requirePermission } from "../access/access";
import type { OrgSummary, ProjectSummary, Viewer } from "../types";

export type SentryUserReport = ReturnType<typeof reportJson>;

export interface UserFeedbackApi {
  list(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<SentryUserReport[]>;
  create(viewer: Viewer, orgSlug: string, projectSlug: string, body: unknown): Promise<SentryUserReport>;
}

export interface UserFeedbackApiDeps {
  db: Db;
  now: () => number;
  getProject(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSummary>;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
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

function reportJson(r: FeedbackRow) {
  return {
    id: String(r.id),
    eventID: r.eventId,
    name: r.name,
    email: r.email,
    comments: r.comments,
    dateCreated: new Date(r.createdAt).toISOString(),
    user: null,
    event: r.eventId ? { id: r.eventId, eventID: r.eventId } : null,
    issue: null,
  };
}

export function createUserFeedbackApi(deps: UserFeedbackApiDeps): UserFeedbackApi {
  const { db } = deps;
  return {
    async list(viewer, orgSlug, projectSlug) {
      requirePermission(viewer, await deps.membershipOrThrow(viewer, orgSlug), "event.read");
      const project = await deps.getProject(viewer, orgSlug, projectSlug);
      return (await listFeedback(db, { projectIds: [project.id], limit: 100 })).map(reportJson);
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
      return reportJson(row);
    },
  };
}
