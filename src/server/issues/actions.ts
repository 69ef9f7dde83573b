/**
 * services.issueActions: resolve / ignore / unresolve / assign (one issue or many), merge, delete,
 * comment, and the activity log — with authorization (SPEC §6): viewers read only; members and up
 * resolve, ignore, assign, comment and merge; deleting needs admin or owner. API tokens also need
 * the `event:write` scope (reads: `event:read`), and act with their creator's current role.
 */

import { z } from "zod";
import { parseAssignee, TEAM_ACTOR_PREFIX, teamRef } from "../../core/assignee";
import { AppError } from "../../core/errors";
import {
  dueAt,
  type IssueCommand,
  ignore,
  type LifecycleConfig,
  latestRelease,
  parseIssueUpdate,
  type ResolveCommand,
  resolve,
  type Transition,
  unresolve,
} from "../../core/issue-state/index";
import { pickProjectByRef } from "../../core/project-ref";
import { validate } from "../../core/validation";
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import type { Tx, writeTx } from "../../storage/dialect";
import { findUserProfiles, insertActivities, listActivity } from "../../storage/issues/activity";
import { lockIssues, writeIssueTx } from "../../storage/issues/issue-locks";
import { getIssue, type IssueRow } from "../../storage/issues/issues";
import { findOrgMember, type LockedIssue, readIssueForUpdate, setAssignee, writeIssueState } from "../../storage/issues/lifecycle";
import { createTriageClaims, type TriageHooks } from "../../storage/issues/triage-runs";
import { findTeamsById, listTeams } from "../../storage/members/teams";
import type { ProjectRow } from "../../storage/orgs/projects";
import { ensureRelease, listProjectReleases } from "../../storage/releases/releases";
import { requirePermission } from "../access/access";
import type { Action } from "../access/permissions";
import { queueIncidentResolves } from "../alerts/incident-resolves";
import type {
  ActivityItem,
  BulkUpdateResult,
  DeleteResult,
  IssueDetail,
  IssueUpdate,
  MergeResult,
  OrgSummary,
  UserRef,
  Viewer,
} from "../types";

export interface IssueActions {
  /** Sentry-shaped update of one issue; returns it as it is now. */
  update(viewer: Viewer, orgSlug: string, issueId: number, input: IssueUpdate): Promise<IssueDetail>;
  /** The same update applied to many issues in one transaction (all exist in the org/project or nothing happens). */
  bulkUpdate(
    viewer: Viewer,
    orgSlug: string,
    issueIds: number[],
    input: IssueUpdate,
    opts?: { projectSlug?: string },
  ): Promise<BulkUpdateResult>;
  /**
   * Several issues of one project become one: `primaryId` when given (the issue page merges into
   * itself, as its dialog says), else the oldest. The merged ids redirect to the survivor.
   */
  merge(viewer: Viewer, orgSlug: string, issueIds: number[], opts?: { projectSlug?: string; primaryId?: number }): Promise<MergeResult>;
  /** Issues with their events removed; later events of their hashes start new issues. Admin/owner. */
  delete(viewer: Viewer, orgSlug: string, issueIds: number[], opts?: { projectSlug?: string }): Promise<DeleteResult>;
  comment(viewer: Viewer, orgSlug: string, issueId: number, text: string): Promise<ActivityItem>;
  /** Newest first; `kinds` filters (e.g. ["comment"]). */
  activity(
    viewer: Viewer,
    orgSlug: string,
    issueId: number,
    opts?: { kinds?: ActivityItem["kind"][]; limit?: number },
  ): Promise<ActivityItem[]>;
}

export interface IssueActionsDeps {
  db: Db;
  now: () => number;
  lifecycle: LifecycleConfig;
  membership(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  /** the org's projects this viewer may see (teams) */
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
  toDetail(issue: IssueRow, projects: Map<number, ProjectRow>): Promise<IssueDetail>;
  /** hears of a triage transaction started again (a warning: the lock order should make it rare) */
  log?: Logger;
  /** tests: pause a merge or delete between its chunks, smaller chunks */
  hooks?: TriageHooks;
}

const MAX_BULK = 1000;

const idsSchema = z
  .array(z.number().int().positive())
  .min(1, "give at least one issue id")
  .max(MAX_BULK, `at most ${MAX_BULK} issues at once`);
const commentSchema = z.string().trim().min(1, "required").max(10_000, "use at most 10,000 characters");

type ReleaseLookup = (tx: Parameters<Parameters<typeof writeTx>[1]>[0], projectId: number) => Promise<ResolveCommand>;

export function createIssueActions(deps: IssueActionsDeps): IssueActions {
  const { db, now } = deps;
  // Merge and delete span several transactions: they claim their issues first (src/storage/issues/triage-runs.ts).
  const claims = createTriageClaims({ db, now, log: deps.log, hooks: deps.hooks });

  /**
   * Every triage write: a transaction that starts by locking its issue rows in id order, the
   * digest's order (src/storage/issues/issue-locks.ts), and is run again if the database still
   * aborted it; the caller never sees that.
   */
  const issueTx = <T>(fn: (tx: Tx) => Promise<T>) =>
    writeIssueTx(db, fn, (err, attempt) =>
      deps.log?.warn(
        { attempt, err: { name: (err as Error)?.name, code: (err as { code?: string })?.code } },
        "issue triage transaction retried",
      ),
    );

  /** Locks the issues (id order); not_found when one is gone meanwhile (merged or deleted). */
  async function lockAll(tx: Tx, ids: number[]): Promise<void> {
    const held = await lockIssues(tx, ids);
    const gone = ids.find((id) => !held.has(id));
    if (gone !== undefined) throw new AppError("not_found", `Issue ${gone} not found.`);
  }

  async function authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary> {
    const org = await deps.membership(viewer, orgSlug);
    requirePermission(viewer, org, action);
    return org;
  }

  /** The issues, all of them in the org (and project when given), or not_found. */
  async function issuesIn(
    org: OrgSummary,
    ids: number[],
    projectSlug?: string,
  ): Promise<{ issues: IssueRow[]; projects: Map<number, ProjectRow> }> {
    const projects = await deps.projectsOf(org);
    const project = projectSlug === undefined ? undefined : pickProjectByRef(projects.values(), projectSlug);
    if (projectSlug !== undefined && !project) throw new AppError("not_found", "Project not found.");
    const issues: IssueRow[] = [];
    for (const id of [...new Set(ids)]) {
      const issue = Number.isSafeInteger(id) ? await getIssue(db, id) : undefined;
      if (!issue || !projects.has(issue.projectId) || (project && issue.projectId !== project.id))
        throw new AppError("not_found", `Issue ${id} not found.`);
      issues.push(issue);
    }
    return { issues, projects };
  }

  async function assigneeFor(viewer: Viewer, org: OrgSummary, value: string | null | undefined): Promise<UserRef | null | undefined> {
    if (value === undefined || value === null) return value;
    // A team: Sentry's `team:<id>`, `team:<slug>` as Sentry's MCP server documents it, or `#slug`
    // as its search and UI write it.
    if (value.startsWith(TEAM_ACTOR_PREFIX) || value.startsWith("#")) {
      const target = parseAssignee(value);
      const slug = value.startsWith("#") ? value.slice(1) : value.slice(TEAM_ACTOR_PREFIX.length);
      const teams = await listTeams(db, org.id);
      const team = teams.find((t) => target?.kind === "team" && t.id === target.teamId) ?? teams.find((t) => t.slug === slug);
      if (!team) throw fieldError("assignedTo", "team", "no team of this organization has that id or slug");
      return teamRef(team);
    }
    // `me`: the caller, as the MCP server's update_issue sends it.
    const ref = value === "me" ? viewer.userId : value.startsWith("user:") ? value.slice(5) : value;
    const member = await findOrgMember(db, org.id, ref);
    if (!member) throw fieldError("assignedTo", "member", "no member of this organization has that id or email");
    return member;
  }

  /** Turns the requested resolution into a command with the release and its order filled in. */
  function releaseLookup(cmd: IssueCommand, at: number): ReleaseLookup | undefined {
    const status = cmd.status;
    if (status?.op !== "resolve") return undefined;
    const res = status.resolution;
    if (res.kind === "now") return async () => ({ kind: "now" });
    return async (tx, projectId) => {
      if (res.kind === "in_release" && res.release !== "latest") {
        const ref = await ensureRelease(tx, projectId, res.release, at);
        return { kind: "in_release", release: ref.version, releaseOrder: ref.order };
      }
      const latest = latestRelease(await listProjectReleases(tx, projectId));
      if (!latest) {
        const field = res.kind === "in_release" ? "statusDetails.inRelease" : "statusDetails.inNextRelease";
        throw fieldError(field, "release", "the project has no releases yet: resolve now, or in a named release");
      }
      return { kind: res.kind, release: latest.version, releaseOrder: latest.order };
    };
  }

  async function apply(
    tx: Parameters<Parameters<typeof writeTx>[1]>[0],
    issue: LockedIssue,
    cmd: IssueCommand,
    ctx: { actor: string; at: number; assignee: UserRef | null | undefined; lookup: ReleaseLookup | undefined },
  ): Promise<void> {
    let t: Transition | undefined;
    const s = cmd.status;
    if (s?.op === "resolve" && ctx.lookup) t = resolve(issue.state, await ctx.lookup(tx, issue.projectId), ctx.actor, ctx.at);
    else if (s?.op === "ignore") t = ignore(issue.state, s.condition, ctx.actor, ctx.at);
    else if (s?.op === "unresolve") t = unresolve(issue.state, ctx.actor, ctx.at, s.substatus);
    if (t?.changed) {
      await writeIssueState(tx, issue.id, t.state, dueAt(t.state, deps.lifecycle));
      await insertActivities(tx, issue.id, issue.projectId, t.activities, ctx.at);
      // An issue that paged resolves its PagerDuty incident / closes its Opsgenie alert.
      if (t.state.status === "resolved" && issue.state.status !== "resolved") await queueIncidentResolves(tx, issue.id, ctx.at);
    }
    if (ctx.assignee !== undefined && (ctx.assignee?.id ?? null) !== issue.assigneeUserId) {
      await setAssignee(tx, issue.id, ctx.assignee?.id ?? null);
      await insertActivities(
        tx,
        issue.id,
        issue.projectId,
        [{ kind: "assigned", actorUserId: ctx.actor, data: { assignee: ctx.assignee } }],
        ctx.at,
      );
    }
  }

  async function updateMany(
    viewer: Viewer,
    orgSlug: string,
    ids: number[],
    input: IssueUpdate,
    projectSlug?: string,
  ): Promise<{ ids: number[]; org: OrgSummary }> {
    const org = await authorize(viewer, orgSlug, "issue.update");
    const at = now();
    const cmd = parseIssueUpdate(input, at);
    const { issues } = await issuesIn(org, ids, projectSlug);
    const assignee = await assigneeFor(viewer, org, cmd.assignedTo);
    const lookup = releaseLookup(cmd, at);
    const sortedIds = issues.map((i) => i.id).sort((a, b) => a - b);
    await claims.finishStalled(sortedIds);
    await issueTx(async (tx) => {
      const sorted = [...issues].sort((a, b) => a.id - b.id);
      await lockAll(tx, sortedIds);
      // Not on an issue a merge is taking away or a delete removing (the one a merge keeps is fine).
      await claims.assertUnclaimed(tx, sortedIds, "change");
      for (const row of sorted) {
        const issue = await readIssueForUpdate(tx, db.dialect, row.id);
        if (!issue) throw new AppError("not_found", `Issue ${row.id} not found.`);
        await apply(tx, issue, cmd, { actor: viewer.userId, at, assignee, lookup });
      }
    });
    return { ids: issues.map((i) => i.id), org };
  }

  async function profiles(userIds: Array<string | null>): Promise<Map<string, UserRef>> {
    return findUserProfiles(
      db,
      userIds.filter((id): id is string => id !== null),
    );
  }

  const actorOf = (map: Map<string, UserRef>, id: string | null): UserRef | null =>
    id === null ? null : (map.get(id) ?? { id, email: "", name: "Former member" });

  return {
    async update(viewer, orgSlug, issueId, input) {
      const { org } = await updateMany(viewer, orgSlug, [issueId], input);
      const { issues, projects } = await issuesIn(org, [issueId]);
      return deps.toDetail(issues[0] as IssueRow, projects);
    },

    async bulkUpdate(viewer, orgSlug, issueIds, input, opts = {}) {
      const ids = validate(idsSchema, issueIds);
      return { ids: (await updateMany(viewer, orgSlug, ids, input, opts.projectSlug)).ids };
    },

    async merge(viewer, orgSlug, issueIds, opts = {}) {
      const org = await authorize(viewer, orgSlug, "issue.update");
      const ids = validate(idsSchema.min(2, "give at least two issues to merge"), [...new Set(issueIds)]);
      const { issues } = await issuesIn(org, ids, opts.projectSlug);
      if (new Set(issues.map((i) => i.projectId)).size > 1)
        throw fieldError("id", "same_project", "only issues of the same project can be merged");
      if (opts.primaryId !== undefined && !ids.includes(opts.primaryId))
        throw fieldError("primaryId", "member", "the surviving issue must be one of the merged issues");
      const sorted = [...issues].sort(
        (a, b) => Number(b.id === opts.primaryId) - Number(a.id === opts.primaryId) || a.firstSeen - b.firstSeen || a.id - b.id,
      );
      const [primary, ...others] = sorted as [IssueRow, ...IssueRow[]];
      const otherIds = others.map((o) => o.id);
      // Claimed first, so no other triage touches these issues while their events move in chunks.
      const owner = await claims.claim("merge", { issues: sorted, targetIssueId: primary.id, actorUserId: viewer.userId });
      await claims.runMerge({ owner, projectId: primary.projectId, primaryId: primary.id, otherIds, actorUserId: viewer.userId });
      return { primaryId: primary.id, mergedIds: otherIds };
    },

    async delete(viewer, orgSlug, issueIds, opts = {}) {
      const org = await authorize(viewer, orgSlug, "issue.delete");
      const ids = validate(idsSchema, issueIds);
      const { issues } = await issuesIn(org, ids, opts.projectSlug);
      // All claimed first (or none: nothing is deleted when another operation holds one of them),
      // then each issue's events in short transactions and the rest with its row. A digest that
      // matched an event to one waits for its lock, then starts a new issue.
      const owner = await claims.claim("delete", { issues, actorUserId: viewer.userId });
      await claims.runDelete(
        owner,
        issues.map((i) => i.id),
      );
      return { deletedIds: issues.map((i) => i.id) };
    },

    async comment(viewer, orgSlug, issueId, text) {
      const org = await authorize(viewer, orgSlug, "issue.comment");
      const body = validate(z.object({ text: commentSchema }), { text }).text;
      const { issues } = await issuesIn(org, [issueId]);
      const issue = issues[0] as IssueRow;
      const at = now();
      // Under the issue's lock: a comment never lands beside an issue being deleted.
      await claims.finishStalled([issue.id]);
      const [id] = await issueTx(async (tx) => {
        await lockAll(tx, [issue.id]);
        await claims.assertUnclaimed(tx, [issue.id], "change");
        return insertActivities(tx, issue.id, issue.projectId, [{ kind: "comment", actorUserId: viewer.userId, data: { text: body } }], at);
      });
      const map = await profiles([viewer.userId]);
      return {
        id: id as number,
        issueId: issue.id,
        kind: "comment",
        actor: actorOf(map, viewer.userId),
        data: { text: body },
        createdAt: at,
      };
    },

    async activity(viewer, orgSlug, issueId, opts = {}) {
      deps.requireScope(viewer, "event:read");
      const org = await deps.membership(viewer, orgSlug);
      const { issues } = await issuesIn(org, [issueId]);
      const rows = await listActivity(db, (issues[0] as IssueRow).id, opts);
      const map = await profiles(rows.map((r) => r.actorUserId));
      return rows.map((r) => ({
        id: r.id,
        issueId: r.issueId,
        kind: r.kind,
        actor: actorOf(map, r.actorUserId),
        data: r.data,
        createdAt: r.createdAt,
      }));
    },
  };
}

function fieldError(field: string, rule: string, message: string): AppError {
  return new AppError("validation_failed", `${field}: ${message}`, { fields: [{ field, rule, message }] });
}

/** Used by services.issues.get: the lifecycle part of an issue's detail. */
export async function assigneeProfile(db: Db, userId: string | null): Promise<UserRef | null> {
  if (userId === null) return null;
  return (await assigneeProfiles(db, [userId])).get(userId) ?? null;
}

/**
 * Profiles of assignees by key (user id or `team:<id>`); a user who has left the organization's
 * users is "Former member", a deleted team "Former team".
 */
export async function assigneeProfiles(db: Db, keys: string[]): Promise<Map<string, UserRef>> {
  const ids = [...new Set(keys)];
  if (ids.length === 0) return new Map();
  const teamIds = ids.flatMap((k) => {
    const t = parseAssignee(k);
    return t?.kind === "team" ? [t.teamId] : [];
  });
  const users = await findUserProfiles(
    db,
    ids.filter((k) => parseAssignee(k)?.kind === "user"),
  );
  const teams = await findTeamsById(db, teamIds);
  return new Map(
    ids.map((id) => {
      const t = parseAssignee(id);
      if (t?.kind === "team") {
        const team = teams.get(t.teamId);
        return [id, team ? teamRef(team) : { id, email: "", name: "Former team" }];
      }
      return [id, users.get(id) ?? { id, email: "", name: "Former member" }];
    }),
  );
}
