/**
 * REST glue for the issue lifecycle, shared by the org-level and project-level routes: Sentry's
 * bulk `PUT/DELETE …/issues/?id=1&id=2` (with `{"merge": 1}` merging), the issue shape with
 * `statusDetails` and `assignedTo`, and activity in Sentry's shape. Services validate and authorize.
 */
import { AppError } from "../../core/errors";
import { app } from "../app-context";
import { readJson, requireViewer } from "../http/api-route";
import { sentryIssueUpdateBody } from "../sentry-api/issue-update-body";
import { sentryIssue } from "../sentry-api/shapes/issue";
import type { ActivityItem, IssueDetail, IssueUpdate, Viewer } from "../types";
import type { IssueSelection } from "./bulk";

const MAX_IDS = 1000;

/** `?id=1&id=2` (Sentry's bulk selector); every id must be a positive integer. */
export function issueIdsFromUrl(url: URL): number[] {
  const raw = url.searchParams.getAll("id");
  if (raw.length === 0) throw idError("required", "name the issues with ?id=…");
  if (raw.length > MAX_IDS) throw idError("max", `at most ${MAX_IDS} issues at once`);
  return raw.map((v) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n <= 0) throw idError("integer", `"${v.slice(0, 40)}" is not an issue id`);
    return n;
  });
}

function idError(rule: string, message: string): AppError {
  return new AppError("validation_failed", `id: ${message}`, { fields: [{ field: "id", rule, message }] });
}

/** The issue a path names (`/issues/{id|shortId}/`): a numeric id or a short id like `WEB-12`. */
export async function issueIdFromPath(viewer: Viewer, org: string, value: string): Promise<number> {
  return app().issueRedirects.resolve(viewer, org, value);
}

/** How many activity items Sentry's issue detail carries (newest first). */
const DETAIL_ACTIVITY = 100;

/**
 * Sentry's issue detail: the issue shape plus the lifecycle fields, its activity and participants.
 * Participants are Sentry's subscribers by participation: everyone who acted on the issue (commented,
 * assigned, resolved…) and the assigned member. Errata records no page views, so `seenBy` is empty
 * as `hasSeen` is false.
 */
export function sentryIssueDetail(issue: IssueDetail, publicUrl: string, orgSlug: string, activity: ActivityItem[]) {
  const participants = new Map<string, { id: string; name: string; email: string }>();
  for (const a of activity) if (a.actor) participants.set(a.actor.id, a.actor);
  if (issue.assigneeUserId && issue.assignee) participants.set(issue.assignee.id, issue.assignee);
  return {
    ...sentryIssue(issue, publicUrl, orgSlug),
    firstRelease: issue.firstRelease ? { version: issue.firstRelease } : null,
    lastRelease: issue.lastRelease ? { version: issue.lastRelease } : null,
    activity: activity.slice(0, DETAIL_ACTIVITY).map(sentryActivity),
    participants: [...participants.values()].map((u) => ({ id: u.id, name: u.name, username: u.email, email: u.email })),
    seenBy: [],
    ...(issue.userReportCount !== undefined ? { userReportCount: issue.userReportCount } : {}),
  };
}

/** The issue detail with its activity and Sentry's extra facts read (the routes answering an issue: detail, update, short id). */
export async function sentryIssueDetailFor(viewer: Viewer, orgSlug: string, issue: IssueDetail) {
  const services = app();
  const [activity, facts] = await Promise.all([
    services.issueActions.activity(viewer, orgSlug, issue.id),
    services.issues.sentryDetailFacts(viewer, orgSlug, issue.id),
  ]);
  return sentryIssueDetail({ ...issue, ...facts }, services.publicUrl, orgSlug, activity);
}

function sentryActivityType(a: ActivityItem): string {
  const to = (a.data.to ?? {}) as { status?: string; substatus?: string };
  const resolution = (a.data.resolution ?? {}) as { kind?: string };
  switch (a.kind) {
    case "comment":
      return "note";
    case "regression":
      return "set_regression";
    case "unignored":
      return "set_unresolved";
    case "assigned":
      return a.data.assignee ? "assigned" : "unassigned";
    case "merge":
      return "merge";
    case "unmerge":
      return "unmerge_source";
    case "first_seen_in_release":
      return "first_seen";
    case "state_change":
      if (to.status === "resolved") return resolution.kind === "now" ? "set_resolved" : "set_resolved_in_release";
      if (to.status === "ignored") return "set_ignored";
      return a.data.reason === "age" ? "auto_set_ongoing" : "set_unresolved";
  }
}

/** Sentry's activity item (`type`, `user`, `data`, `dateCreated`) with Errata's `kind`. */
export function sentryActivity(a: ActivityItem) {
  return {
    id: String(a.id),
    type: sentryActivityType(a),
    kind: a.kind,
    user: a.actor,
    data: a.data,
    dateCreated: new Date(a.createdAt).toISOString(),
  };
}

/** A single-issue update body, Sentry's synonyms mapped (the service validates strictly). */
export function issueUpdateFromBody(body: unknown): IssueUpdate {
  return sentryIssueUpdateBody(body) as IssueUpdate;
}

/** Splits a bulk body into `{"merge": 1}` or an ordinary update. */
function bulkIntent(body: unknown): { merge: true } | { update: IssueUpdate } {
  if (typeof body === "object" && body !== null && !Array.isArray(body) && "merge" in body) {
    const { merge, ...rest } = body as Record<string, unknown>;
    if (merge !== 1 && merge !== true && merge !== "1") {
      throw new AppError("validation_failed", "merge: must be 1", { fields: [{ field: "merge", rule: "literal", message: "must be 1" }] });
    }
    if (Object.keys(rest).length > 0) {
      const field = Object.keys(rest)[0] as string;
      throw new AppError("validation_failed", `${field}: not allowed with merge`, {
        fields: [{ field, rule: "exclusive", message: "not allowed with merge" }],
      });
    }
    return { merge: true };
  }
  // Sentry's synonyms and ignorable keys first; the service then validates strictly.
  return { update: sentryIssueUpdateBody(body) as IssueUpdate };
}

/** No `?id=`: Sentry's "every issue matching `?status=` / `?query=`" (sentry-cli `--all`, `-s`). */
function selectionFromUrl(url: URL, project?: string): IssueSelection | null {
  if (url.searchParams.getAll("id").length > 0) return null;
  return { project, query: url.searchParams.get("query"), status: url.searchParams.get("status") };
}

/** `PUT …/issues/?id=…`: bulk update (Sentry answers with the applied fields) or merge. */
export async function bulkPut(req: Request, scope: { org: string; project?: string }): Promise<Response> {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const selection = selectionFromUrl(url, scope.project);
  const intent = bulkIntent(await readJson(req));
  const services = app();
  const opts = { projectSlug: scope.project };
  let hasMore: boolean | undefined;
  if ("merge" in intent) {
    const r = await services.issueActions.merge(viewer, scope.org, issueIdsFromUrl(url), opts);
    return Response.json({ merge: { parent: String(r.primaryId), children: r.mergedIds.map(String) } });
  }
  if (selection) hasMore = (await services.issueBulk.updateMatching(viewer, scope.org, selection, intent.update)).hasMore;
  else await services.issueActions.bulkUpdate(viewer, scope.org, issueIdsFromUrl(url), intent.update, opts);
  const applied = intent.update;
  return Response.json({
    ...(hasMore !== undefined ? { hasMore } : {}),
    ...(applied.status !== undefined ? { status: applied.status === "resolvedInNextRelease" ? "resolved" : applied.status } : {}),
    ...(applied.status !== undefined ? { statusDetails: applied.statusDetails ?? {} } : {}),
    ...(applied.assignedTo !== undefined ? { assignedTo: applied.assignedTo || null } : {}),
  });
}

/** `DELETE …/issues/?id=…` (admin/owner): 204 like Sentry. */
export async function bulkDelete(req: Request, scope: { org: string; project?: string }): Promise<Response> {
  const viewer = await requireViewer(req);
  const url = new URL(req.url);
  const selection = selectionFromUrl(url, scope.project);
  if (selection) {
    // Sentry answers 204 either way; `hasMore` in a header tells a script to repeat.
    const { hasMore } = await app().issueBulk.deleteMatching(viewer, scope.org, selection);
    return new Response(null, { status: 204, headers: { "x-errata-has-more": String(hasMore) } });
  }
  await app().issueActions.delete(viewer, scope.org, issueIdsFromUrl(url), { projectSlug: scope.project });
  return new Response(null, { status: 204 });
}

/** Sentry's issue notes, `GET …/issues/{id}/comments/` (also served as `…/notes/`): newest first. */
export async function listNotes(req: Request, params: { org: string; issueId: string }): Promise<Response> {
  const viewer = await requireViewer(req);
  const id = await issueIdFromPath(viewer, params.org, params.issueId);
  const items = await app().issueActions.activity(viewer, params.org, id, { kinds: ["comment"] });
  return Response.json(items.map(sentryActivity));
}

/** `POST …/issues/{id}/comments/` (or `…/notes/`) with `{"text": "…"}`; the service validates the text. */
export async function addNote(req: Request, params: { org: string; issueId: string }): Promise<Response> {
  const viewer = await requireViewer(req);
  const body = await readJson(req);
  const text = typeof body === "object" && body !== null ? (body as { text?: unknown }).text : undefined;
  const id = await issueIdFromPath(viewer, params.org, params.issueId);
  const item = await app().issueActions.comment(viewer, params.org, id, typeof text === "string" ? text : "");
  return Response.json(sentryActivity(item), { status: 201 });
}
