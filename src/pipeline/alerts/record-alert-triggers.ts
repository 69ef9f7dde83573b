/**
 * The digest's hook into issue alerting (release health has its own: record-crash-free.ts),
 * called by the lifecycle step inside the batch transaction after an event was counted: decides which enabled rules of the project fire for this event
 * (new issue, regression, unignored, frequency on the issue's counters), applies filters, mutes,
 * the per-issue throttle and the hourly cap, and writes the notification rows (the outbox) in the
 * same transaction — a committed trigger always has its messages queued, a rolled-back one none.
 *
 * Cheap when nothing is armed: the project's rules are read once per transaction; a project with
 * no frequency rule costs no statement for events that create, regress or unignore nothing.
 */
import { randomUUID } from "node:crypto";
import { filtersPass, frequencyReachable, frequencyStep, ruleTrigger, throttleAllows, underHourlyCap } from "../../core/alerts/match-rule";
import {
  formatShortId,
  hasInAppFrame,
  type IssueAlert,
  issuePath,
  MESSAGE_VERSION,
  type ReleaseAlert,
  shownTags,
  topFrameOf,
} from "../../core/alerts/message";
import { type DigestSideRef, digestPath, type NextjsAlert, nextjsPath } from "../../core/alerts/nextjs-alert";
import type { AlertRule, AlertSubject, RuleIssueState, TriggerKind } from "../../core/alerts/types";
import type { NormalizedEvent } from "../../core/event";
import type { IssueState } from "../../core/issue-state/types";
import { nextjsMetaOf } from "../../core/nextjs/index";
import { statTagsOf } from "../../core/search/event-tags";
import { parseIssueSearch, type SearchCondition } from "../../core/search/parse-query";
import { insertNotifications, type NewNotification, ruleMessagesSince } from "../../storage/alerts/notifications";
import { enabledRules } from "../../storage/alerts/rules";
import type { Tx } from "../../storage/dialect";
import { digestCounterparts } from "../../storage/events/digests";
import { pairNextjsMessage } from "./pair-nextjs";

const HOUR = 3_600_000;
/** How far back an event with the same digest counts as the other side of this one (as the issue page's links). */
const DIGEST_LINK_MS = 7 * 24 * HOUR;

/** What the digest knows about the event, for filters and the message. */
export interface AlertEventFacts {
  event: NormalizedEvent;
  title: string;
  culprit: string;
  newUser: boolean;
  digestKey: string | null;
}

export interface AlertTriggerInput {
  projectId: number;
  issueId: number;
  created: boolean;
  regressed: boolean;
  unignored: boolean;
  /** the issue after this event was counted */
  state: IssueState;
  eventId: string;
  receivedAt: number;
  /** absent for issues created without an event (then filters see an empty event) */
  facts?: AlertEventFacts;
  now: number;
  /** how long a Next.js message waits for its other side or its burst (ALERTS_NEXTJS_PAIR_MS / _BURST_MS; none without it) */
  nextjsHold?: { pairMs: number; burstMs: number };
}

interface ArmedRule {
  rule: AlertRule;
  query: SearchCondition[];
}

export interface ProjectAlerting {
  rules: ArmedRule[];
  project: { id: number; slug: string; name: string; orgSlug: string } | undefined;
  /** (rule, issue) counters read or written in this transaction: read once, written on change */
  ruleIssues: Map<string, RuleIssueState | null>;
}

/** Per transaction: each project's rules are read once (rules cannot change under the transaction's snapshot). */
const memo = new WeakMap<Tx, Map<number, ProjectAlerting>>();

/** The project's enabled rules (search queries compiled) and its names, read once per transaction. */
export async function projectAlerting(tx: Tx, projectId: number, now: number): Promise<ProjectAlerting> {
  let byProject = memo.get(tx);
  if (!byProject) {
    byProject = new Map();
    memo.set(tx, byProject);
  }
  const known = byProject.get(projectId);
  if (known) return known;
  const rules = await enabledRules(tx, projectId);
  const armed: ArmedRule[] = [];
  for (const rule of rules) {
    try {
      armed.push({ rule, query: rule.filters.query ? parseIssueSearch(rule.filters.query, now).conditions : [] });
    } catch {
      // Validated on save; a query the parser no longer accepts disarms only its rule.
    }
  }
  const out: ProjectAlerting = { rules: armed, project: undefined, ruleIssues: new Map() };
  if (armed.length > 0) {
    const p = await tx
      .selectFrom("projects as p")
      .innerJoin("organizations as o", "o.id", "p.org_id")
      .select(["p.id", "p.slug", "p.name", "o.slug as orgSlug"])
      .where("p.id", "=", projectId)
      .executeTakeFirst();
    if (p) out.project = { id: Number(p.id), slug: p.slug, name: p.name, orgSlug: p.orgSlug };
  }
  byProject.set(projectId, out);
  return out;
}

/**
 * Whether every event of this project must pass through the rules one by one: a frequency rule
 * counts each event, so the digest may not sum an issue's events of a batch for such a project.
 */
export async function countsEachEvent(tx: Tx, projectId: number, now: number): Promise<boolean> {
  return (await projectAlerting(tx, projectId, now)).rules.some(({ rule }) => rule.triggers.frequency);
}

export async function recordAlertTriggers(tx: Tx, input: AlertTriggerInput): Promise<void> {
  const alerting = await projectAlerting(tx, input.projectId, input.now);
  if (alerting.rules.length === 0 || !alerting.project) return;
  const project = alerting.project;
  const lazy = new LazyIssue(tx, input, project.slug);
  for (const { rule, query } of alerting.rules) {
    const freq = rule.triggers.frequency;
    let state: RuleIssueState | undefined;
    const frequency = { fired: false, holds: false };
    if (freq && frequencyReachable(freq, input.state.eventCount, input.state.userCount)) {
      const step = frequencyStep(
        await ruleIssue(tx, alerting, rule.id, input.issueId),
        {
          eventCount: input.state.eventCount,
          userCount: input.state.userCount,
          newUser: input.facts?.newUser ?? false,
          firstSeen: input.state.firstSeen,
        },
        freq,
        input.now,
      );
      state = step.state;
      if (step.changed) await writeRuleIssue(tx, alerting, rule.id, input.issueId, state);
      frequency.fired = step.fired;
      frequency.holds = state.firedInWindow;
    }
    const trigger = ruleTrigger(rule, input, frequency);
    if (!trigger) continue;
    if (!filtersPass(rule.filters, query, await lazy.subject(), input.now)) continue;
    if (await lazy.muted()) continue;
    state ??= await ruleIssue(tx, alerting, rule.id, input.issueId);
    if (!throttleAllows(state?.lastNotifiedAt, rule.throttleMinutes, input.now)) continue;
    const message = await lazy.message(rule, trigger, project);
    const pairing = await pairNextjsMessage(tx, rule.id, message, { now: input.now, ...(input.nextjsHold ?? { pairMs: 0, burstMs: 0 }) });
    if (pairing.send) {
      await queueMessages(tx, rule, trigger, message, {
        projectId: input.projectId,
        issueId: input.issueId,
        now: input.now,
        notBefore: pairing.notBefore,
      });
    }
    await writeRuleIssue(tx, alerting, rule.id, input.issueId, {
      ...(state ?? { windowStart: input.now, baseEvents: input.state.eventCount, baseUsers: input.state.userCount, firedInWindow: false }),
      lastNotifiedAt: input.now,
    });
  }
}

/**
 * Writes a fired rule's message for each of its channels (the outbox), pending or — beyond the
 * rule's hourly cap — held for the summary. Issue and release alerts alike.
 */
export async function queueMessages(
  tx: Tx,
  rule: AlertRule,
  trigger: TriggerKind,
  message: IssueAlert | ReleaseAlert,
  input: { projectId: number; issueId: number | null; now: number; notBefore?: number },
): Promise<void> {
  // People targets (issue owners, suspect commit authors) are about an issue: a release alert has none.
  const targets = input.issueId === null ? [] : (rule.targets ?? []);
  const outputs = rule.channelIds.length + targets.length;
  if (outputs === 0) return;
  // The cap counts messages per channel: a rule with two channels may send 2 × cap an hour.
  const recent = await ruleMessagesSince(tx, rule.id, input.now - HOUR);
  const held = !underHourlyCap(recent, rule.hourlyCap * outputs);
  const payload = JSON.stringify(message);
  const row = (channelId: number, target: string | null): NewNotification => ({
    projectId: input.projectId,
    ruleId: rule.id,
    channelId,
    issueId: input.issueId,
    kind: "alert",
    trigger,
    payload,
    status: held ? "held" : "pending",
    deliveryId: randomUUID(),
    now: input.now,
    notBefore: input.notBefore,
    target,
  });
  // Channel 0: no channel; the recipients are found from the target when the row is delivered,
  // so a rule or team changed in between is honoured.
  await insertNotifications(tx, [...rule.channelIds.map((id) => row(id, null)), ...targets.map((t) => row(0, JSON.stringify(t)))]);
}

/** Reads the issue's extras (short id, mute, tags) only once something fires. */
class LazyIssue {
  private subjectValue: AlertSubject | undefined;
  private mutedValue: boolean | undefined;
  private shortId: number | undefined;
  private nextjsValue: NextjsAlert | null | undefined;

  constructor(
    private readonly tx: Tx,
    private readonly input: AlertTriggerInput,
    private readonly projectSlug: string,
  ) {}

  async subject(): Promise<AlertSubject> {
    if (this.subjectValue) return this.subjectValue;
    const { input } = this;
    const e = input.facts?.event;
    const row = await this.tx
      .selectFrom("issues")
      .select(["short_id", "title", "culprit", "level", "last_seen"])
      .where("id", "=", input.issueId)
      .executeTakeFirst();
    this.shortId = Number(row?.short_id ?? 0);
    this.subjectValue = {
      projectSlug: this.projectSlug,
      issue: {
        id: input.issueId,
        title: input.facts?.title ?? row?.title ?? "",
        culprit: input.facts?.culprit ?? row?.culprit ?? "",
        level: row?.level ?? e?.level ?? "error",
        status: input.state.status,
        substatus: input.state.substatus,
        firstSeen: input.state.firstSeen,
        lastSeen: Number(row?.last_seen ?? input.receivedAt),
        eventCount: input.state.eventCount,
        userCount: input.state.userCount,
      },
      event: {
        level: e?.level ?? row?.level ?? "error",
        environment: e?.environment ?? null,
        release: e?.release ?? null,
        tags: e ? statTagsOf(e, input.facts?.digestKey) : [],
        hasInAppFrame: e ? hasInAppFrame(e) : false,
      },
    };
    return this.subjectValue;
  }

  async muted(): Promise<boolean> {
    if (this.mutedValue !== undefined) return this.mutedValue;
    const m = await this.tx.selectFrom("alert_mutes").select("until").where("issue_id", "=", this.input.issueId).executeTakeFirst();
    this.mutedValue = m !== undefined && (m.until === null || Number(m.until) > this.input.now);
    return this.mutedValue;
  }

  async message(rule: AlertRule, trigger: TriggerKind, project: NonNullable<ProjectAlerting["project"]>): Promise<IssueAlert> {
    const s = await this.subject();
    const e = this.input.facts?.event;
    const nextjs = await this.nextjs(project);
    return {
      v: MESSAGE_VERSION,
      kind: "alert",
      trigger,
      rule: { id: rule.id, name: rule.name },
      org: { slug: project.orgSlug },
      project: { id: project.id, slug: project.slug, name: project.name },
      issue: {
        id: s.issue.id,
        shortId: formatShortId(project.slug, this.shortId ?? 0),
        title: s.issue.title,
        culprit: s.issue.culprit,
        level: s.issue.level,
        status: s.issue.status,
        substatus: s.issue.substatus,
        firstSeen: s.issue.firstSeen,
        lastSeen: s.issue.lastSeen,
        count: s.issue.eventCount,
        userCount: s.issue.userCount,
      },
      event: {
        id: this.input.eventId,
        environment: s.event.environment,
        release: s.event.release,
        topFrame: e ? topFrameOf(e) : null,
        tags: shownTags(s.event.tags),
      },
      ...(nextjs ? { nextjs } : {}),
      path: nextjsPath(nextjs) ?? issuePath(project.orgSlug, s.issue.id),
    };
  }

  /** The Next.js facts of the message (read once per event, whichever rules fire). */
  private async nextjs(project: NonNullable<ProjectAlerting["project"]>): Promise<NextjsAlert | undefined> {
    if (this.nextjsValue !== undefined) return this.nextjsValue ?? undefined;
    const e = this.input.facts?.event;
    const meta = e ? nextjsMetaOf(e) : {};
    const out: NextjsAlert = {};
    if (meta.react?.message) out.react = { code: meta.react.code, message: meta.react.message };
    if (meta.classification === "deploy-skew") {
      const st = this.input.state;
      out.skew = {
        release: e?.release ?? null,
        users: st.userCount,
        events: st.eventCount,
        minutes: Math.ceil(Math.max(0, this.input.receivedAt - st.firstSeen) / 60_000),
      };
    }
    if (meta.digest) out.digest = await this.digest(meta.digest, project);
    this.nextjsValue = Object.keys(out).length > 0 ? out : null;
    return this.nextjsValue ?? undefined;
  }

  /** The digest and, when its events arrived, the issue on the other side (same project). */
  private async digest(
    d: { value: string; key: string; side: "server" | "client" },
    project: NonNullable<ProjectAlerting["project"]>,
  ): Promise<NonNullable<NextjsAlert["digest"]>> {
    const out: NonNullable<NextjsAlert["digest"]> = { value: d.value, key: d.key, side: d.side, path: digestPath(project.orgSlug, d.key) };
    const others = await digestCounterparts(this.tx, {
      projectId: project.id,
      key: d.key,
      excludeIssueId: this.input.issueId,
      from: this.input.receivedAt - DIGEST_LINK_MS,
    });
    const want = d.side === "client" ? "server" : "client";
    const other = others.find((o) => o.side === want);
    if (!other) return out;
    const ref: DigestSideRef = {
      issueId: other.issueId,
      shortId: formatShortId(project.slug, other.shortId),
      title: other.title,
      culprit: other.culprit,
      path: issuePath(project.orgSlug, other.issueId),
    };
    return d.side === "client" ? { ...out, server: ref } : { ...out, browser: ref };
  }
}

async function ruleIssue(tx: Tx, alerting: ProjectAlerting, ruleId: number, issueId: number): Promise<RuleIssueState | undefined> {
  const key = `${ruleId}:${issueId}`;
  if (alerting.ruleIssues.has(key)) return alerting.ruleIssues.get(key) ?? undefined;
  const state = await readRuleIssue(tx, ruleId, issueId);
  alerting.ruleIssues.set(key, state ?? null);
  return state;
}

async function readRuleIssue(tx: Tx, ruleId: number, issueId: number): Promise<RuleIssueState | undefined> {
  const r = await tx
    .selectFrom("alert_rule_issues")
    .selectAll()
    .where("rule_id", "=", ruleId)
    .where("issue_id", "=", issueId)
    .executeTakeFirst();
  if (!r) return undefined;
  return {
    windowStart: Number(r.window_start),
    baseEvents: Number(r.base_events),
    baseUsers: Number(r.base_users),
    firedInWindow: Number(r.fired_in_window) === 1,
    lastNotifiedAt: r.last_notified_at === null ? null : Number(r.last_notified_at),
  };
}

async function writeRuleIssue(tx: Tx, alerting: ProjectAlerting, ruleId: number, issueId: number, s: RuleIssueState): Promise<void> {
  alerting.ruleIssues.set(`${ruleId}:${issueId}`, s);
  const values = {
    window_start: s.windowStart,
    base_events: s.baseEvents,
    base_users: s.baseUsers,
    fired_in_window: s.firedInWindow ? 1 : 0,
    last_notified_at: s.lastNotifiedAt,
  };
  await tx
    .insertInto("alert_rule_issues")
    .values({ rule_id: ruleId, issue_id: issueId, ...values })
    .onConflict((oc) => oc.columns(["rule_id", "issue_id"]).doUpdateSet(values))
    .execute();
}
