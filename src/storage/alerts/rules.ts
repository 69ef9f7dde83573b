/**
 * Alert rules and channels (0013): CRUD for the services, the enabled rules of a project for the
 * digest, and the default rule + email channel every new project starts with.
 */
import { defaultRule } from "../../core/alerts/rule-input";
import type {
  AlertChannel,
  AlertRule,
  ChannelConfig,
  ChannelKind,
  RuleReleaseState,
  RuleSettings,
  RuleTarget,
  RuleTriggers,
} from "../../core/alerts/types";
import type { Db } from "../db";
import type { Tx } from "../dialect";

type Reader = Db | Tx;
const k = (db: Reader): Tx => ("kysely" in db ? db.kysely : db);

function parse<T>(s: string, fallback: T): T {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}

interface RuleRow {
  id: number;
  project_id: number;
  name: string;
  enabled: number;
  triggers: string;
  filters: string;
  channel_ids: string;
  throttle_minutes: number;
  hourly_cap: number;
  targets: string;
  created_at: number;
  updated_at: number;
}

const NO_TRIGGERS: RuleTriggers = { newIssue: false, regression: false, unignored: false, frequency: null, crashFree: null };

function toRule(r: RuleRow): AlertRule {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    name: r.name,
    enabled: Number(r.enabled) === 1,
    // Rules stored before a trigger existed lack its key: it is off.
    triggers: { ...NO_TRIGGERS, ...parse<Partial<RuleTriggers>>(r.triggers, {}) },
    filters: parse(r.filters, { environments: [], levels: [], tags: [], maxIssueAgeMinutes: null, inAppOnly: false, query: "" }),
    channelIds: parse<number[]>(r.channel_ids, []),
    targets: parse<RuleTarget[]>(r.targets ?? "[]", []),
    throttleMinutes: Number(r.throttle_minutes),
    hourlyCap: Number(r.hourly_cap),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function ruleColumns(s: RuleSettings) {
  return {
    name: s.name,
    enabled: s.enabled ? 1 : 0,
    triggers: JSON.stringify(s.triggers),
    filters: JSON.stringify(s.filters),
    channel_ids: JSON.stringify(s.channelIds),
    targets: JSON.stringify(s.targets ?? []),
    throttle_minutes: s.throttleMinutes,
    hourly_cap: s.hourlyCap,
  };
}

/** A new rule without targets leaves the column to its default ('[]'), so the rule every new
 *  project gets can be written on a schema from before targets (an upgrade test's old version). */
function insertColumns(s: RuleSettings) {
  const { targets, ...rest } = ruleColumns(s);
  return (s.targets ?? []).length > 0 ? { ...rest, targets } : rest;
}

export async function listRules(db: Reader, projectId: number): Promise<AlertRule[]> {
  const rows = await k(db).selectFrom("alert_rules").selectAll().where("project_id", "=", projectId).orderBy("id").execute();
  return rows.map(toRule);
}

/** Enabled rules of these projects (the digest reads them once per project and transaction). */
export async function enabledRules(db: Reader, projectId: number): Promise<AlertRule[]> {
  const rows = await k(db)
    .selectFrom("alert_rules")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("enabled", "=", 1)
    .orderBy("id")
    .execute();
  return rows.map(toRule);
}

export async function findRule(db: Reader, projectId: number, ruleId: number): Promise<AlertRule | undefined> {
  const r = await k(db)
    .selectFrom("alert_rules")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "=", ruleId)
    .executeTakeFirst();
  return r ? toRule(r) : undefined;
}

export async function insertRule(tx: Tx, projectId: number, s: RuleSettings, now: number): Promise<AlertRule> {
  const r = await tx
    .insertInto("alert_rules")
    .values({ project_id: projectId, ...insertColumns(s), created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRule(r);
}

export async function updateRule(tx: Tx, projectId: number, ruleId: number, s: RuleSettings, now: number): Promise<AlertRule | undefined> {
  const r = await tx
    .updateTable("alert_rules")
    .set({ ...ruleColumns(s), updated_at: now })
    .where("project_id", "=", projectId)
    .where("id", "=", ruleId)
    .returningAll()
    .executeTakeFirst();
  return r ? toRule(r) : undefined;
}

export async function deleteRule(tx: Tx, projectId: number, ruleId: number): Promise<boolean> {
  const res = await tx.deleteFrom("alert_rules").where("project_id", "=", projectId).where("id", "=", ruleId).executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) return false;
  await tx.deleteFrom("alert_rule_issues").where("rule_id", "=", ruleId).execute();
  await tx.deleteFrom("alert_rule_releases").where("rule_id", "=", ruleId).execute();
  return true;
}

/** The crash-free trigger's (rule, release) states of these rules for one release. */
export async function ruleReleaseStates(tx: Tx, ruleIds: number[], release: string): Promise<Map<number, RuleReleaseState>> {
  const out = new Map<number, RuleReleaseState>();
  if (ruleIds.length === 0) return out;
  const rows = await tx
    .selectFrom("alert_rule_releases")
    .select(["rule_id", "below", "last_notified_at"])
    .where("rule_id", "in", ruleIds)
    .where("release", "=", release)
    .execute();
  for (const r of rows)
    out.set(Number(r.rule_id), {
      below: Number(r.below) === 1,
      lastNotifiedAt: r.last_notified_at === null ? null : Number(r.last_notified_at),
    });
  return out;
}

export async function putRuleReleaseState(tx: Tx, ruleId: number, release: string, s: RuleReleaseState, now: number): Promise<void> {
  const values = { below: s.below ? 1 : 0, last_notified_at: s.lastNotifiedAt, updated_at: now };
  await tx
    .insertInto("alert_rule_releases")
    .values({ rule_id: ruleId, release, ...values })
    .onConflict((oc) => oc.columns(["rule_id", "release"]).doUpdateSet(values))
    .execute();
}

interface ChannelRow {
  id: number;
  project_id: number;
  name: string;
  kind: string;
  config: string;
  created_at: number;
}

function toChannel(r: ChannelRow): AlertChannel {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    name: r.name,
    kind: r.kind as ChannelKind,
    config: parse<ChannelConfig>(r.config, {}),
    createdAt: Number(r.created_at),
  };
}

export async function listChannels(db: Reader, projectId: number): Promise<AlertChannel[]> {
  const rows = await k(db).selectFrom("alert_channels").selectAll().where("project_id", "=", projectId).orderBy("id").execute();
  return rows.map(toChannel);
}

export async function findChannel(db: Reader, channelId: number): Promise<AlertChannel | undefined> {
  const r = await k(db).selectFrom("alert_channels").selectAll().where("id", "=", channelId).executeTakeFirst();
  return r ? toChannel(r) : undefined;
}

export async function insertChannel(
  tx: Tx,
  projectId: number,
  c: { name: string; kind: ChannelKind; config: ChannelConfig },
  now: number,
): Promise<AlertChannel> {
  const r = await tx
    .insertInto("alert_channels")
    .values({ project_id: projectId, name: c.name, kind: c.kind, config: JSON.stringify(c.config), created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toChannel(r);
}

export async function deleteChannel(tx: Tx, projectId: number, channelId: number): Promise<boolean> {
  const res = await tx.deleteFrom("alert_channels").where("project_id", "=", projectId).where("id", "=", channelId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/**
 * Every new project: the default rule, sending to an email channel to its members when the
 * installation can send mail (`email`); without SMTP the rule has no channel yet (an email
 * channel would only fill the delivery log with failures) and the alerts page says what to add.
 */
export async function insertDefaultAlerting(tx: Tx, projectId: number, now: number, email: boolean): Promise<void> {
  const channel = email
    ? await insertChannel(tx, projectId, { name: "Project members (email)", kind: "email", config: { to: [] } }, now)
    : undefined;
  await insertRule(tx, projectId, defaultRule(channel?.id), now);
}

/** Issue mutes: alerts for the issue are not queued until `until` (null = until unmuted). */
export async function setIssueMute(tx: Tx, issueId: number, until: number | null, now: number): Promise<void> {
  await tx
    .insertInto("alert_mutes")
    .values({ issue_id: issueId, until, created_at: now })
    .onConflict((oc) => oc.column("issue_id").doUpdateSet({ until, created_at: now }))
    .execute();
}

export async function clearIssueMute(tx: Tx, issueId: number): Promise<void> {
  await tx.deleteFrom("alert_mutes").where("issue_id", "=", issueId).execute();
}

export async function issueMute(db: Reader, issueId: number): Promise<{ until: number | null } | undefined> {
  const r = await k(db).selectFrom("alert_mutes").select("until").where("issue_id", "=", issueId).executeTakeFirst();
  return r ? { until: r.until === null ? null : Number(r.until) } : undefined;
}

export async function setEmailOptOut(tx: Tx, userId: string, projectId: number, optOut: boolean): Promise<void> {
  if (!optOut) {
    await tx.deleteFrom("alert_email_optouts").where("user_id", "=", userId).where("project_id", "=", projectId).execute();
    return;
  }
  await tx
    .insertInto("alert_email_optouts")
    .values({ user_id: userId, project_id: projectId })
    .onConflict((oc) => oc.columns(["user_id", "project_id"]).doNothing())
    .execute();
}

export async function emailOptedOut(db: Reader, userId: string, projectId: number): Promise<boolean> {
  const r = await k(db)
    .selectFrom("alert_email_optouts")
    .select("user_id")
    .where("user_id", "=", userId)
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  return r !== undefined;
}
