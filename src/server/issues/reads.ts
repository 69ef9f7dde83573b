/** Sentry's issue list and issue detail, and single events, over the shared access rules. */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { getEvent, getLatestEvent } from "../../storage/events/events";
import { findProjectBySlug } from "../../storage/orgs/projects";
import type { Access } from "../access/access";
import { canSeeProject } from "../access/visibility";
import { withIssueFlags } from "../events/digests";
import type { AppServices } from "../services";
import type { IssueDetail } from "../types";
import { assigneeProfiles } from "./actions";
import { toEventDetail, toIssueDetail } from "./shapes";
import type { IssueStreamServices } from "./stream";

export function createIssueReads(deps: { db: Db; access: Access; issueStream: IssueStreamServices }): AppServices["issues"] {
  const { db, access, issueStream } = deps;
  return {
    // The stream's search (src/server/issues/stream.ts), without its default status or sparklines,
    // with assignees' profiles (Sentry's list carries assignedTo).
    async list(viewer, orgSlug, q) {
      const page = await issueStream.search(viewer, orgSlug, q);
      const profiles = await assigneeProfiles(
        db,
        page.items.flatMap((i) => (i.assigneeUserId ? [i.assigneeUserId] : [])),
      );
      return {
        ...page,
        items: page.items.map((i) => ({ ...i, assignee: i.assigneeUserId ? (profiles.get(i.assigneeUserId) ?? null) : null })),
      };
    },
    async get(viewer, orgSlug, issueId) {
      access.requireScope(viewer, "event:read");
      const { issue, projects } = await access.issueInOrg(viewer, orgSlug, issueId);
      const [detail] = await withIssueFlags(db, [await toIssueDetail(db, issue, projects)]);
      return detail as IssueDetail;
    },
  };
}

export function createEventReads(deps: { db: Db; access: Access }): AppServices["events"] {
  const { db, access } = deps;
  return {
    async latestForIssue(viewer, orgSlug, issueId) {
      access.requireScope(viewer, "event:read");
      const { issue, projects } = await access.issueInOrg(viewer, orgSlug, issueId);
      const ev = await getLatestEvent(db, issue.id);
      if (!ev) return null;
      return toEventDetail(ev, projects);
    },
    async get(viewer, orgSlug, projectSlug, eventId) {
      access.requireScope(viewer, "event:read");
      const org = await access.membershipOrThrow(viewer, orgSlug);
      const found = await findProjectBySlug(db, org.id, projectSlug);
      const p = found && canSeeProject(org, found.id) ? found : undefined;
      const id = eventId.replace(/-/g, "").toLowerCase();
      const ev = p && /^[0-9a-f]{32}$/.test(id) ? await getEvent(db, p.id, id) : undefined;
      if (!p || !ev) throw new AppError("not_found", "Event not found.");
      return toEventDetail(ev, new Map([[p.id, p]]));
    },
  };
}
