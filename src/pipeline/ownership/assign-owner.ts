/**
 * Auto-assignment of a new issue (issue 30), inside the digest's batch transaction right after
 * the issue was created: "Auto Assign to Issue Owner" gives it to the first owner (that the
 * organization still has) of the last ownership rule its event matches; "Auto Assign to Suspect
 * Commits" to the author of the best suspect commit when that author is a member, else as by
 * owner. The activity log records which rule or commit decided. The project's settings are read
 * and parsed once per transaction.
 */
import { teamRef } from "../../core/assignee";
import type { NormalizedEvent } from "../../core/event";
import { matchingRules, ownershipFactsOf } from "../../core/ownership/match";
import { type OwnershipRule, ownerIdentifiers, resolveOwners } from "../../core/ownership/rules";
import { inAppPaths, suspectCommits } from "../../core/ownership/suspect-commits";
import type { Tx } from "../../storage/dialect";
import { insertActivities } from "../../storage/issues/activity";
import { setAssignee } from "../../storage/issues/lifecycle";
import { membersByEmail, type OwnershipRow, projectOrgId, projectReleaseId, teamsBySlug } from "../../storage/ownership/ownership";
import { projectOwnershipRules } from "../../storage/ownership/project-rules";
import { listCommitsWithFiles } from "../../storage/releases/meta";

interface ProjectOwnership {
  settings: OwnershipRow | undefined;
  rules: OwnershipRule[];
  orgId: number | undefined;
}

const memo = new WeakMap<Tx, Map<number, ProjectOwnership>>();
/** Commits compared per release when assigning (the newest) */
const MAX_COMMITS = 1_000;

async function projectOwnership(tx: Tx, projectId: number): Promise<ProjectOwnership> {
  let byProject = memo.get(tx);
  if (!byProject) {
    byProject = new Map();
    memo.set(tx, byProject);
  }
  const known = byProject.get(projectId);
  if (known) return known;
  // Saved rules parsed (CODEOWNERS lines first); a line a later parser refuses disarms only that line.
  const loaded = await projectOwnershipRules(tx, projectId);
  const armed = loaded.rules.length > 0 || loaded.settings?.autoAssignment === "suspect";
  const orgId = armed ? await projectOrgId(tx, projectId) : undefined;
  const out = { settings: loaded.settings, rules: loaded.rules, orgId };
  byProject.set(projectId, out);
  return out;
}

export interface NewIssueFacts {
  projectId: number;
  issueId: number;
  event: NormalizedEvent;
  at: number;
}

export async function assignNewIssue(tx: Tx, f: NewIssueFacts): Promise<void> {
  const p = await projectOwnership(tx, f.projectId);
  // No settings saved (CODEOWNERS only): Sentry's default, assign to the issue owner.
  const mode = p.settings?.autoAssignment ?? "owner";
  if (mode === "off" || p.orgId === undefined) return;
  if (mode === "suspect" && (await assignToSuspect(tx, f, p.orgId))) return;
  const last = matchingRules(p.rules, ownershipFactsOf(f.event)).at(-1);
  if (!last) return;
  const ids = ownerIdentifiers([last]);
  const dir = { members: await membersByEmail(tx, p.orgId, ids.emails), teams: await teamsBySlug(tx, p.orgId, ids.teams) };
  const owner = resolveOwners(last, dir)[0];
  if (!owner) return;
  const assignee = owner.type === "team" ? teamRef(owner) : { id: owner.id, email: owner.email, name: owner.name };
  await setAssignee(tx, f.issueId, assignee.id);
  await insertActivities(
    tx,
    f.issueId,
    f.projectId,
    [{ kind: "assigned", actorUserId: null, data: { assignee, ownershipRule: last.text } }],
    f.at,
  );
}

async function assignToSuspect(tx: Tx, f: NewIssueFacts, orgId: number): Promise<boolean> {
  const release = f.event.release;
  if (!release) return false;
  const releaseId = await projectReleaseId(tx, f.projectId, release);
  if (releaseId === undefined) return false;
  const commits = await listCommitsWithFiles(tx, releaseId, MAX_COMMITS);
  const suspects = suspectCommits(
    inAppPaths(f.event),
    commits.map((c) => ({ ...c, files: c.files.map((x) => x.path) })),
  );
  const members = await membersByEmail(
    tx,
    orgId,
    suspects.flatMap((s) => (s.commit.authorEmail ? [s.commit.authorEmail] : [])),
  );
  for (const s of suspects) {
    const m = s.commit.authorEmail ? members.get(s.commit.authorEmail.toLowerCase()) : undefined;
    if (!m) continue;
    await setAssignee(tx, f.issueId, m.id);
    await insertActivities(
      tx,
      f.issueId,
      f.projectId,
      [{ kind: "assigned", actorUserId: null, data: { assignee: m, suspectCommit: { id: s.commit.id, file: s.file } } }],
      f.at,
    );
    return true;
  }
  return false;
}
