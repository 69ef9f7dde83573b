/**
 * Sentry's bulk issue mutations without ids (`PUT/DELETE …/issues/?status=…&query=…`), as
 * `sentry-cli issues resolve --all` / `-s muted` send them: the issues matching the search
 * (default `is:unresolved`, as Sentry) are updated, at most 1,000 per request as Sentry caps them;
 * `hasMore` says more still match, and repeating the request continues (updated issues usually no
 * longer match). Authorization is the issue actions' own (event:write, role), checked even when
 * nothing matches.
 */
import { AppError } from "../../core/errors";
import { parseIssueUpdate } from "../../core/issue-state/update-input";
import { requirePermission } from "../access/access";
import type { Action } from "../access/permissions";
import type { IssueSummary, OrgSummary, Page, Viewer } from "../types";
import type { IssueActions } from "./actions";
import type { IssueListQuery } from "./list-query";

export const BULK_MUTATION_LIMIT = 1000;

export interface IssueSelection {
  project?: string;
  /** the search language; absent: Sentry's default `is:unresolved` (unless `status` is given) */
  query?: string | null;
  /** Sentry's `?status=` filter: resolved | unresolved | ignored | muted */
  status?: string | null;
}

export interface BulkMatchResult {
  ids: number[];
  hasMore: boolean;
}

export interface IssueBulkServices {
  updateMatching(viewer: Viewer, orgSlug: string, sel: IssueSelection, update: unknown): Promise<BulkMatchResult>;
  deleteMatching(viewer: Viewer, orgSlug: string, sel: IssueSelection): Promise<BulkMatchResult>;
}

export interface IssueBulkDeps {
  search(viewer: Viewer, orgSlug: string, q: IssueListQuery): Promise<Page<IssueSummary>>;
  actions: Pick<IssueActions, "bulkUpdate" | "delete">;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  /** The project a selection names, when the viewer may act on it and sees it; else forbidden or not_found. */
  projectOrThrow(viewer: Viewer, orgSlug: string, projectRef: string, action: Action): Promise<unknown>;
  requireScope(viewer: Viewer, scope: string): void;
  now: () => number;
}

const STATUSES: Record<string, string> = { resolved: "resolved", unresolved: "unresolved", ignored: "ignored", muted: "ignored" };

/** The search a selection stands for. */
export function selectionQuery(sel: IssueSelection): string {
  const parts: string[] = [];
  if (sel.status) {
    const status = STATUSES[sel.status];
    if (!status)
      throw new AppError("validation_failed", "status: use resolved, unresolved, ignored or muted", {
        fields: [{ field: "status", rule: "enum", message: "use resolved, unresolved, ignored or muted" }],
      });
    parts.push(`is:${status}`);
  }
  if (sel.query !== undefined && sel.query !== null) parts.push(sel.query);
  else if (!sel.status) parts.push("is:unresolved");
  return parts.join(" ").trim();
}

export function createIssueBulk(deps: IssueBulkDeps): IssueBulkServices {
  /** The permission, then the selection's project: one outside the viewer's teams is not found, as by every project route. */
  async function authorize(viewer: Viewer, orgSlug: string, action: Action, sel: IssueSelection): Promise<void> {
    requirePermission(viewer, await deps.membershipOrThrow(viewer, orgSlug), action);
    if (sel.project) await deps.projectOrThrow(viewer, orgSlug, sel.project, action);
  }

  /** Up to the cap of matching ids (one more read tells whether more match). */
  async function matching(viewer: Viewer, orgSlug: string, sel: IssueSelection): Promise<BulkMatchResult> {
    const query = selectionQuery(sel);
    const ids: number[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page: Page<IssueSummary> = await deps.search(viewer, orgSlug, { project: sel.project, query, cursor, limit: 100 });
      ids.push(...page.items.map((i) => i.id));
      if (ids.length > BULK_MUTATION_LIMIT || !page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return { ids: ids.slice(0, BULK_MUTATION_LIMIT), hasMore: ids.length > BULK_MUTATION_LIMIT };
  }

  return {
    async updateMatching(viewer, orgSlug, sel, update) {
      await authorize(viewer, orgSlug, "issue.update", sel);
      // A bad body is a 400 even when nothing matches.
      parseIssueUpdate(update, deps.now());
      const found = await matching(viewer, orgSlug, sel);
      if (found.ids.length > 0) await deps.actions.bulkUpdate(viewer, orgSlug, found.ids, update as never, { projectSlug: sel.project });
      return found;
    },
    async deleteMatching(viewer, orgSlug, sel) {
      await authorize(viewer, orgSlug, "issue.delete", sel);
      const found = await matching(viewer, orgSlug, sel);
      if (found.ids.length > 0) await deps.actions.delete(viewer, orgSlug, found.ids, { projectSlug: sel.project });
      return found;
    },
  };
}
