/**
 * Ownership and suspect commits (issue 30): a project's rules in Sentry's syntax (read by every
 * member who sees the project; changed by admins and owners, refused whole when any line does not
 * parse or names an owner the organization lacks), the owners and suspect commits of an issue for
 * its page, and Sentry's `…/events/{id}/committers/`. Commit authors are members when their email
 * is a member's.
 */
import { teamRef } from "../../core/assignee";
import { AppError } from "../../core/errors";
import type { NormalizedEvent } from "../../core/event";
import { matchingRules, ownershipFactsOf, type PathHint, pathHint } from "../../core/ownership/match";
import {
  AUTO_ASSIGNMENT,
  type AutoAssignment,
  autoAssignmentFromLabel,
  type LineError,
  type OwnerDirectory,
  type OwnershipRule,
  ownerIdentifiers,
  parseOwnershipRules,
  resolveOwners,
  unknownOwners,
} from "../../core/ownership/rules";
import { inAppPaths, type SuspectCommit, suspectCommits } from "../../core/ownership/suspect-commits";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { getEvent } from "../../storage/events/events";
import { getIssue } from "../../storage/issues/issues";
import { findProjectById, type ProjectRow } from "../../storage/orgs/projects";
import {
  findOwnership,
  firstEventRef,
  membersByEmail,
  type OrgPerson,
  type OwnershipRow,
  projectReleaseId,
  saveOwnership,
  teamsBySlug,
} from "../../storage/ownership/ownership";
import { projectOwnershipRules } from "../../storage/ownership/project-rules";
import { listCommitsWithFiles } from "../../storage/releases/meta";
import type { Access } from "../access/access";
import { permits } from "../access/permissions";
import { canSeeProject } from "../access/visibility";
import type { OrgSummary, UserRef, Viewer } from "../types";

/** Sentry's ProjectOwnership serializer. */
export interface SentryOwnership {
  raw: string | null;
  fallthrough: boolean;
  dateCreated: string | null;
  lastUpdated: string | null;
  isActive: boolean;
  autoAssignment: string;
  codeownersAutoSync: boolean;
  schema: { $version: 1; rules: Array<{ matcher: OwnershipRule["matcher"]; owners: Array<{ type: string; identifier: string }> }> } | null;
}

export interface OwnershipView {
  canManage: boolean;
  role: OrgSummary["role"];
  settings: SentryOwnership;
  /** the organization's teams and members, for the editor's hints */
  teams: string[];
}

export interface IssueOwner {
  owner: UserRef;
  /** the rule as written */
  rule: string;
  line: number;
}

export interface SuspectCommitView {
  id: string;
  repository: string;
  message: string | null;
  timestamp: number | null;
  file: string;
  score: number;
  author: { name: string | null; email: string | null; member: UserRef | null };
}

export interface IssueOwnership {
  /** matching rules' owners, the winning (last) rule first */
  owners: IssueOwner[];
  suspects: SuspectCommitView[];
  release: string | null;
  /** when no rule matched: the frame paths the rules were tried on and a `path:` rule that would match */
  hint: PathHint | null;
}

export interface OwnershipServices {
  get(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<OwnershipView>;
  /** Sentry's PUT: any of raw, fallthrough, autoAssignment, codeownersAutoSync. */
  update(viewer: Viewer, orgSlug: string, projectSlug: string, body: unknown): Promise<SentryOwnership>;
  forIssue(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueOwnership>;
  committers(viewer: Viewer, orgSlug: string, projectSlug: string, eventId: string): Promise<{ committers: SentryCommitter[] }>;
}

export interface SentryCommitter {
  author: { id?: string; name: string | null; email: string | null; username?: string };
  commits: Array<{
    id: string;
    message: string | null;
    dateCreated: string | null;
    repository: { name: string };
    score: number;
    suspectCommitType: string;
    pullRequest: null;
  }>;
}

export interface OwnershipDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectOrThrow: Access["projectOrThrow"];
  requireScope(viewer: Viewer, scope: string): void;
}

const canManage = (org: OrgSummary) => permits(org.role, { kind: "session" }, "project.write");
const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const MAX_COMMITS = 1_000;

function sentryShape(row: OwnershipRow | undefined): SentryOwnership {
  const rules = row ? parseOwnershipRules(row.raw).rules : [];
  return {
    raw: row?.raw ?? null,
    fallthrough: row?.fallthrough ?? true,
    dateCreated: iso(row?.createdAt),
    lastUpdated: iso(row?.updatedAt),
    isActive: true,
    autoAssignment: AUTO_ASSIGNMENT[row?.autoAssignment ?? "owner"],
    codeownersAutoSync: row?.codeownersAutoSync ?? true,
    schema: row ? { $version: 1, rules: rules.map((r) => ({ matcher: r.matcher, owners: r.owners })) } : null,
  };
}

function lineErrors(errors: LineError[]): AppError {
  const first = errors[0] as LineError;
  const where = (e: LineError) => (e.line > 0 ? `line ${e.line}: ` : "");
  return new AppError(
    "validation_failed",
    `${where(first)}${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`,
    {
      fields: errors
        .slice(0, 50)
        .map((e) => ({ field: e.line > 0 ? `raw.${e.line}` : "raw", rule: "ownership", message: `${where(e)}${e.message}` })),
    },
  );
}

function badField(field: string, message: string): AppError {
  return new AppError("validation_failed", `${field}: ${message}`, { fields: [{ field, rule: "type", message }] });
}

function personRef(p: OrgPerson): UserRef {
  return { id: p.id, email: p.email, name: p.name };
}

export function createOwnershipServices(deps: OwnershipDeps): OwnershipServices {
  const { db, now, membershipOrThrow, projectOrThrow, requireScope } = deps;

  async function directory(orgId: number, rules: OwnershipRule[]): Promise<OwnerDirectory> {
    const ids = ownerIdentifiers(rules);
    return { members: await membersByEmail(db, orgId, ids.emails), teams: await teamsBySlug(db, orgId, ids.teams) };
  }

  async function suspectsOf(project: ProjectRow, event: NormalizedEvent): Promise<SuspectCommit[]> {
    if (!event.release) return [];
    const releaseId = await projectReleaseId(db, project.id, event.release);
    if (releaseId === undefined) return [];
    const commits = await listCommitsWithFiles(db, releaseId, MAX_COMMITS);
    return suspectCommits(
      inAppPaths(event),
      commits.map((c) => ({ ...c, files: c.files.map((f) => f.path) })),
    );
  }

  async function authors(orgId: number, suspects: SuspectCommit[]): Promise<Map<string, OrgPerson>> {
    return membersByEmail(
      db,
      orgId,
      suspects.flatMap((s) => (s.commit.authorEmail ? [s.commit.authorEmail] : [])),
    );
  }

  return {
    async get(viewer, orgSlug, projectSlug) {
      const { org, project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.read");
      const row = await findOwnership(db, project.id);
      const teams = await db.kysely.selectFrom("teams").select("slug").where("org_id", "=", org.id).orderBy("slug").execute();
      return { canManage: canManage(org), role: org.role, settings: sentryShape(row), teams: teams.map((t) => t.slug) };
    },

    async update(viewer, orgSlug, projectSlug, input) {
      const { org, project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.write");
      // An organization token acts as an admin in the table, but ownership rules have always also
      // asked its creator's current role: kept, so a demoted creator's token still cannot change them.
      if (!canManage(org)) throw new AppError("forbidden", "Only admins and owners can change ownership rules.");
      if (typeof input !== "object" || input === null || Array.isArray(input)) throw badField("body", "send a JSON object");
      const body = input as Record<string, unknown>;
      const current = await findOwnership(db, project.id);
      let raw = current?.raw ?? "";
      if (body.raw !== undefined && body.raw !== null) {
        if (typeof body.raw !== "string") throw badField("raw", "must be text");
        raw = body.raw;
      }
      const flag = (name: string, fallback: boolean): boolean => {
        const v = body[name];
        if (v === undefined || v === null) return fallback;
        if (typeof v !== "boolean") throw badField(name, "must be true or false");
        return v;
      };
      const fallthrough = flag("fallthrough", current?.fallthrough ?? true);
      const codeownersAutoSync = flag("codeownersAutoSync", current?.codeownersAutoSync ?? true);
      let autoAssignment: AutoAssignment = current?.autoAssignment ?? "owner";
      if (body.autoAssignment !== undefined && body.autoAssignment !== null) {
        const mode = typeof body.autoAssignment === "string" ? autoAssignmentFromLabel(body.autoAssignment) : undefined;
        if (!mode) throw badField("autoAssignment", `one of ${Object.values(AUTO_ASSIGNMENT).join(", ")}`);
        autoAssignment = mode;
      }
      const { rules, errors } = parseOwnershipRules(raw);
      if (errors.length > 0) throw lineErrors(errors);
      const missing = unknownOwners(rules, await directory(org.id, rules));
      if (missing.length > 0) throw lineErrors(missing);
      await writeTx(db, (tx) => saveOwnership(tx, { projectId: project.id, raw, fallthrough, autoAssignment, codeownersAutoSync }, now()));
      return sentryShape(await findOwnership(db, project.id));
    },

    async forIssue(viewer, orgSlug, issueId) {
      requireScope(viewer, "event:read");
      const org = await membershipOrThrow(viewer, orgSlug);
      const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
      const project = issue ? await findProjectById(db, issue.projectId) : undefined;
      if (!issue || !project || project.orgId !== org.id || !canSeeProject(org, project.id))
        throw new AppError("not_found", "Issue not found.");
      const ref = await firstEventRef(db, issue.id);
      const stored = ref ? await getEvent(db, ref.projectId, ref.eventId) : undefined;
      if (!stored) return { owners: [], suspects: [], release: null, hint: null };
      const event = stored.event as unknown as NormalizedEvent;
      const { rules } = await projectOwnershipRules(db, project.id, org.id);
      const matched = matchingRules(rules, ownershipFactsOf(event)).reverse();
      const dir = await directory(org.id, matched);
      const owners: IssueOwner[] = [];
      for (const rule of matched) {
        for (const o of resolveOwners(rule, dir)) {
          const ref = o.type === "team" ? teamRef(o) : personRef(o);
          if (!owners.some((x) => x.owner.id === ref.id)) owners.push({ owner: ref, rule: rule.text, line: rule.line });
        }
      }
      const suspects = await suspectsOf(project, event);
      const people = await authors(org.id, suspects);
      return {
        owners,
        hint: owners.length === 0 ? pathHint(event) : null,
        release: event.release ?? null,
        suspects: suspects.map((s) => {
          const m = s.commit.authorEmail ? people.get(s.commit.authorEmail.toLowerCase()) : undefined;
          return {
            id: s.commit.id,
            repository: s.commit.repository,
            message: s.commit.message,
            timestamp: s.commit.timestamp,
            file: s.file,
            score: s.score,
            author: { name: s.commit.authorName, email: s.commit.authorEmail, member: m ? personRef(m) : null },
          };
        }),
      };
    },

    async committers(viewer, orgSlug, projectSlug, eventId) {
      const { org, project } = await projectOrThrow(viewer, orgSlug, projectSlug, "event.read");
      const stored = /^[0-9a-f-]{32,36}$/i.test(eventId) ? await getEvent(db, project.id, eventId) : undefined;
      if (!stored) throw new AppError("not_found", "Event not found.");
      const suspects = await suspectsOf(project, stored.event as unknown as NormalizedEvent);
      const people = await authors(org.id, suspects);
      const byAuthor = new Map<string, SentryCommitter>();
      for (const s of suspects) {
        const email = s.commit.authorEmail?.toLowerCase() ?? "";
        const m = email ? people.get(email) : undefined;
        const key = email || `name:${s.commit.authorName ?? ""}`;
        let entry = byAuthor.get(key);
        if (!entry) {
          entry = {
            author: m
              ? { id: m.id, name: m.name, email: m.email, username: m.email }
              : { name: s.commit.authorName, email: s.commit.authorEmail },
            commits: [],
          };
          byAuthor.set(key, entry);
        }
        entry.commits.push({
          id: s.commit.id,
          message: s.commit.message,
          dateCreated: iso(s.commit.timestamp),
          repository: { name: s.commit.repository },
          score: s.score,
          suspectCommitType: "via commit in release",
          pullRequest: null,
        });
      }
      return { committers: [...byAuthor.values()] };
    },
  };
}
