/**
 * services.issueUnmerge: an issue's grouping hashes, and unmerge by hash as Sentry offers it — the
 * hash's stored events and its future events go to a new issue. Members and above; reads need
 * event:read, the split event:write.
 */
import { AppError } from "../../core/errors";
import type { NormalizedEvent } from "../../core/event";
import { statTagsOf } from "../../core/search/event-tags";
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import { guardOldEventPointers } from "../../storage/events/partitions";
import { insertActivities } from "../../storage/issues/activity";
import { lockIssues, writeIssueTx } from "../../storage/issues/issue-locks";
import { getIssue, type IssueRow, insertIssue, listIssueHashes } from "../../storage/issues/issues";
import { createTriageClaims } from "../../storage/issues/triage-runs";
import { type IssueEventForSplit, issueEventsAfter, moveEventsForSplit, moveIssueHash } from "../../storage/issues/unmerge";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import type { Action } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";

export interface IssueHashView {
  hash: string;
  groupingVersion: string;
}

export interface IssueUnmerge {
  /** The hashes grouped into the issue (Sentry's `…/issues/{id}/hashes/`). */
  hashes(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueHashView[]>;
  /** Moves `hash` with its stored and future events to a new issue; the issue must keep another hash. */
  unmerge(viewer: Viewer, orgSlug: string, issueId: number, hash: string): Promise<{ newIssueId: number; movedEvents: number }>;
}

export interface IssueUnmergeDeps {
  db: Db;
  now(): number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
  /** hears of the transaction started again (a warning) */
  log?: Logger;
}

const PAGE = 500;

/** The hashes an event was grouped by (written by the digest into `errata.grouping`). */
function groupedBy(e: IssueEventForSplit): string[] {
  const g = (e.event.errata as { grouping?: { hash?: unknown; hashes?: unknown } } | undefined)?.grouping;
  const list = Array.isArray(g?.hashes) ? g.hashes.filter((h): h is string => typeof h === "string") : [];
  return typeof g?.hash === "string" && !list.includes(g.hash) ? [g.hash, ...list] : list;
}

export function createIssueUnmerge(deps: IssueUnmergeDeps): IssueUnmerge {
  const { db } = deps;
  const claims = createTriageClaims({ db, now: deps.now, log: deps.log });

  async function issueOf(viewer: Viewer, orgSlug: string, issueId: number, action: Action): Promise<{ org: OrgSummary; issue: IssueRow }> {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, action);
    const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
    if (!issue || !(await deps.projectsOf(org)).has(issue.projectId)) throw new AppError("not_found", "Issue not found.");
    return { org, issue };
  }

  return {
    async hashes(viewer, orgSlug, issueId) {
      const { issue } = await issueOf(viewer, orgSlug, issueId, "event.read");
      return listIssueHashes(db, issue.id);
    },

    async unmerge(viewer, orgSlug, issueId, hash) {
      const { issue } = await issueOf(viewer, orgSlug, issueId, "issue.update");
      const hashes = await listIssueHashes(db, issue.id);
      const own = hashes.find((h) => h.hash === hash);
      if (!own) throw new AppError("not_found", "This issue has no such grouping hash.");
      if (hashes.length < 2) throw new AppError("validation_failed", "An issue with one grouping hash has nothing to split off.");
      const at = deps.now();
      // One transaction under the issue's lock, the digest's lock order (issue rows, then the
      // project's row for the new issue's short id): the hash and its events move together. A
      // digest that matched an event to this issue by the hash waits, then finds the new owner.
      const retried = (err: unknown, attempt: number) =>
        deps.log?.warn(
          { attempt, err: { name: (err as Error)?.name, code: (err as { code?: string })?.code } },
          "unmerge transaction retried",
        );
      await claims.finishStalled([issue.id]);
      return writeIssueTx(
        db,
        async (tx) => {
          // The new issue's first and latest events may be in a week retention is detaching.
          await guardOldEventPointers(db, tx);
          if (!(await lockIssues(tx, [issue.id])).has(issue.id)) throw new AppError("not_found", "Issue not found.");
          // Not while a merge or delete moves this issue's events in chunks (src/storage/issues/triage-runs.ts).
          await claims.assertUnclaimed(tx, [issue.id], "restructure");
          const created = await insertIssue(tx, {
            projectId: issue.projectId,
            title: issue.title,
            culprit: issue.culprit,
            type: issue.type,
            level: issue.level,
            metadata: issue.metadata,
            seenAt: at,
            release: null,
            hashes: [],
            groupingVersion: own.groupingVersion,
          });
          if (!(await moveIssueHash(tx, issue.projectId, hash, issue.id, created.id)))
            throw new AppError("conflict", "The hash moved meanwhile; reload and try again.");
          const moving: IssueEventForSplit[] = [];
          for (let after = 0; ; ) {
            const page = await issueEventsAfter(tx, issue.id, after, PAGE);
            for (const e of page) if (groupedBy(e).includes(hash)) moving.push(e);
            if (page.length < PAGE) break;
            after = (page[page.length - 1] as IssueEventForSplit).id;
          }
          const move = { projectId: issue.projectId, fromIssueId: issue.id, toIssueId: created.id };
          await moveEventsForSplit(tx, move, moving, (e) => statTagsOf(e.event as unknown as NormalizedEvent, e.digest));
          const data = { hash, issue: { id: issue.id, shortId: issue.shortId }, newIssue: { id: created.id }, events: moving.length };
          await insertActivities(tx, issue.id, issue.projectId, [{ kind: "unmerge", actorUserId: viewer.userId, data }], at);
          await insertActivities(tx, created.id, issue.projectId, [{ kind: "unmerge", actorUserId: viewer.userId, data }], at);
          return { newIssueId: created.id, movedEvents: moving.length };
        },
        retried,
      );
    },
  };
}
