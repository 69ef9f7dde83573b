/**
 * The lifecycle step of the digest, inside the batch transaction, after an event was counted on
 * its issue: first-seen activity for new issues; regression, unignore and aging for the others.
 * Cheap by construction: `recordIssueEvent` returns the state it just wrote (RETURNING), and an
 * unresolved issue that is not due needs nothing more — no extra statement for most events.
 */
import {
  DEFAULT_LIFECYCLE,
  dueAt,
  eventNeedsWork,
  type IssueState,
  type LifecycleConfig,
  needsReleaseOrder,
  onEvent,
  windowSince,
} from "../core/issue-state/index";
import type { Tx } from "../storage/dialect";
import { insertActivities } from "../storage/issues/activity";
import { issueWindowCounts, writeIssueState } from "../storage/issues/lifecycle";
import { releaseOrder } from "../storage/releases/releases";
import { type AlertEventFacts, recordAlertTriggers } from "./alerts/record-alert-triggers";
import { assignNewIssue } from "./ownership/assign-owner";

export interface LifecycleStepInput {
  projectId: number;
  issueId: number;
  /** true when this event created the issue */
  created: boolean;
  /** what recordIssueEvent returned; undefined when the issue vanished */
  state: IssueState | undefined;
  eventId: string;
  receivedAt: number;
  release: string | null;
  /** the event itself, for alert rule filters and messages (src/pipeline/alerts/) */
  alert?: AlertEventFacts;
  /** how long a Next.js alert waits for its other side or burst (none without it) */
  nextjsHold?: { pairMs: number; burstMs: number };
}

/** Thrown when the issue was merged or deleted between lookup and update; the item is retried alone. */
export class IssueVanishedError extends Error {
  constructor(issueId: number) {
    super(`issue ${issueId} was merged or deleted while digesting; the item is retried`);
    this.name = "IssueVanishedError";
  }
}

export async function applyEventLifecycle(
  tx: Tx,
  e: LifecycleStepInput,
  now: number,
  cfg: LifecycleConfig = DEFAULT_LIFECYCLE,
): Promise<void> {
  if (!e.state) throw new IssueVanishedError(e.issueId);
  const t = await applyTransitions(tx, e, e.state, now, cfg);
  // Alert rules see the issue as this event left it; their messages join this transaction.
  await recordAlertTriggers(tx, {
    projectId: e.projectId,
    issueId: e.issueId,
    created: e.created,
    regressed: t.regressed,
    unignored: t.unignored,
    state: t.state,
    eventId: e.eventId,
    receivedAt: e.receivedAt,
    facts: e.alert,
    now,
    nextjsHold: e.nextjsHold,
  });
}

interface TransitionFacts {
  state: IssueState;
  regressed: boolean;
  unignored: boolean;
}

async function applyTransitions(
  tx: Tx,
  e: LifecycleStepInput,
  state: IssueState,
  now: number,
  cfg: LifecycleConfig,
): Promise<TransitionFacts> {
  const none = { state, regressed: false, unignored: false };
  if (e.created) {
    await insertActivities(
      tx,
      e.issueId,
      e.projectId,
      [{ kind: "first_seen_in_release", actorUserId: null, data: { release: e.release, eventId: e.eventId } }],
      e.receivedAt,
    );
    if (e.alert) await assignNewIssue(tx, { projectId: e.projectId, issueId: e.issueId, event: e.alert.event, at: e.receivedAt });
    return none;
  }
  if (!eventNeedsWork(state, now, cfg)) return none;
  const since = windowSince(state, now);
  const windowCounts = since === undefined ? undefined : await issueWindowCounts(tx, e.issueId, since);
  const order = needsReleaseOrder(state, e.release) && e.release !== null ? await releaseOrder(tx, e.projectId, e.release) : undefined;
  const t = onEvent(state, { receivedAt: e.receivedAt, release: e.release, releaseOrder: order, windowCounts }, now, cfg);
  if (!t.changed) return none;
  await writeIssueState(tx, e.issueId, t.state, dueAt(t.state, cfg));
  for (const a of t.activities) if (a.kind === "regression" || a.kind === "unignored") a.data.eventId = e.eventId;
  await insertActivities(tx, e.issueId, e.projectId, t.activities, now);
  return {
    state: t.state,
    regressed: t.activities.some((a) => a.kind === "regression"),
    unignored: t.activities.some((a) => a.kind === "unignored"),
  };
}
