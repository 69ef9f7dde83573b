/**
 * Who an alert to "issue owners" or "suspect commit authors" goes to (issue 30), found when the
 * message is delivered so the ownership rules, CODEOWNERS and teams as they are then decide:
 * - issue owners: the owners of the last ownership rule the issue's first event matches (the rule
 *   that assigns it); a team stands for its members;
 * - suspect commit authors: the members whose email authored a suspect commit of that event.
 * Nobody found (no rule matched, no member among the authors) → the target's fallthrough: every
 * member of the project, the recently active ones (Sentry's "ActiveMembers": the 20 who signed in
 * most recently), or no one. Only members who may see the project (its teams; admins and owners)
 * and did not turn off its email are mailed, whoever a rule or CODEOWNERS names.
 */
import type { Fallthrough, RuleTarget } from "../../core/alerts/types";
import type { NormalizedEvent } from "../../core/event";
import { matchingRules, ownershipFactsOf } from "../../core/ownership/match";
import { inAppPaths, suspectCommits } from "../../core/ownership/suspect-commits";
import type { Db } from "../../storage/db";
import { getEvent } from "../../storage/events/events";
import { firstEventRef, membersByEmail, projectOrgId, projectReleaseId } from "../../storage/ownership/ownership";
import { projectOwnershipRules } from "../../storage/ownership/project-rules";
import { activeMemberEmails, projectAudienceEmails, teamMemberEmails } from "../../storage/ownership/recipients";
import { listCommitsWithFiles } from "../../storage/releases/meta";

export interface TargetRecipients {
  to: string[];
  /** how they were found, for the delivery log: "owners by rule …", "fallthrough: all members" */
  reason: string;
}

const MAX_COMMITS = 1_000;
const FALLTHROUGH_LABEL: Record<Fallthrough, string> = {
  all_members: "all members",
  active_members: "recently active members",
  no_one: "no one",
};

export function parseTarget(json: string | null): RuleTarget | undefined {
  if (!json) return undefined;
  try {
    const t = JSON.parse(json) as RuleTarget;
    if ((t.type === "issue_owners" || t.type === "suspect_commits") && t.fallthrough in FALLTHROUGH_LABEL) return t;
  } catch {
    // an unreadable target is reported by the caller
  }
  return undefined;
}

export async function targetRecipients(db: Db, projectId: number, issueId: number | null, target: RuleTarget): Promise<TargetRecipients> {
  // Only members who may see the project and did not turn off its email, whoever the rules name.
  const subscribed = new Set((await projectAudienceEmails(db, projectId)).map((e) => e.toLowerCase()));
  const found = issueId === null ? undefined : await findPeople(db, projectId, issueId, target);
  const to = (found?.emails ?? []).filter((e) => subscribed.has(e.toLowerCase()));
  if (found && to.length > 0) return { to: unique(to), reason: found.reason };
  const why = found
    ? `${found.reason}, none subscribed`
    : target.type === "issue_owners"
      ? "no owner matched"
      : "no suspect commit by a member";
  if (target.fallthrough === "no_one") return { to: [], reason: `${why}; fallthrough: no one` };
  const pool =
    target.fallthrough === "all_members"
      ? [...subscribed]
      : (await activeMemberEmails(db, projectId, 20)).filter((e) => subscribed.has(e.toLowerCase()));
  return { to: unique(pool), reason: `${why}; fallthrough: ${FALLTHROUGH_LABEL[target.fallthrough]}` };
}

const unique = (emails: string[]) => [...new Map(emails.map((e) => [e.toLowerCase(), e])).values()].sort();

async function findPeople(
  db: Db,
  projectId: number,
  issueId: number,
  target: RuleTarget,
): Promise<{ emails: string[]; reason: string } | undefined> {
  const orgId = await projectOrgId(db, projectId);
  const ref = await firstEventRef(db, issueId);
  const stored = ref ? await getEvent(db, ref.projectId, ref.eventId) : undefined;
  if (orgId === undefined || !stored) return undefined;
  const event = stored.event as unknown as NormalizedEvent;
  if (target.type === "issue_owners") {
    const { rules } = await projectOwnershipRules(db, projectId, orgId);
    const last = matchingRules(rules, ownershipFactsOf(event)).at(-1);
    if (!last) return undefined;
    const emails = last.owners.filter((o) => o.type === "user").map((o) => o.identifier);
    const teams = last.owners.filter((o) => o.type === "team").map((o) => o.identifier);
    const members = await membersByEmail(db, orgId, emails);
    const people = [...members.values()].map((m) => m.email);
    people.push(...(await teamMemberEmails(db, orgId, teams)));
    return people.length > 0 ? { emails: people, reason: `owners by rule ${last.text}` } : undefined;
  }
  if (!event.release) return undefined;
  const releaseId = await projectReleaseId(db, projectId, event.release);
  if (releaseId === undefined) return undefined;
  const commits = await listCommitsWithFiles(db, releaseId, MAX_COMMITS);
  const suspects = suspectCommits(
    inAppPaths(event),
    commits.map((c) => ({ ...c, files: c.files.map((f) => f.path) })),
  );
  const members = await membersByEmail(
    db,
    orgId,
    suspects.flatMap((s) => (s.commit.authorEmail ? [s.commit.authorEmail] : [])),
  );
  if (members.size === 0) return undefined;
  const ids = suspects.filter((s) => members.has(s.commit.authorEmail?.toLowerCase() ?? "")).map((s) => s.commit.id.slice(0, 12));
  return { emails: [...members.values()].map((m) => m.email), reason: `suspect commits ${ids.join(", ")}` };
}
