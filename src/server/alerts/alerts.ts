/**
 * Alert rules, channels, the delivery log, issue mutes and email opt-outs (issue 11). Every member
 * of the organization may read a project's rules and log; only admins and owners change rules and
 * channels (SPEC §6); members mute issues and choose their own email. "Send a test" queues a
 * message in the same outbox the digest uses and waits for the delivery loop's answer, so it shows
 * exactly what a real alert would get from the remote.
 */
import { randomUUID } from "node:crypto";
import type { IncidentResolve } from "../../core/alerts/incident-bodies";
import { type AlertMessage, alertsSettingsPath, heldEntry, MESSAGE_VERSION, type TestMessage } from "../../core/alerts/message";
import { parseChannelInput, parseRuleInput } from "../../core/alerts/rule-input";
import type { AlertChannel, AlertRule } from "../../core/alerts/types";
import { AppError } from "../../core/errors";
import { type OutboundPolicy, type Resolver, refusedTarget } from "../../net/safe-request";
import {
  findNotification,
  insertNotifications,
  listNotifications,
  type NotificationRow,
  retryNotification,
} from "../../storage/alerts/notifications";
import {
  clearIssueMute,
  deleteChannel,
  deleteRule,
  emailOptedOut,
  findRule,
  insertChannel,
  insertRule,
  issueMute,
  listChannels,
  listRules,
  setEmailOptOut,
  setIssueMute,
  updateRule,
} from "../../storage/alerts/rules";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { getIssue } from "../../storage/issues/issues";
import { findProjectById, type ProjectRow } from "../../storage/orgs/projects";
import { type Access, requirePermission } from "../access/access";
import { permits } from "../access/permissions";
import { canSeeProject } from "../access/visibility";
import type { OrgSummary, Viewer } from "../types";

/** A channel as shown: secrets are never sent back, only whether one is set. */
export interface ChannelView {
  id: number;
  name: string;
  kind: AlertChannel["kind"];
  /** URL without credentials in its path beyond the host (Slack/Discord URLs are secrets) */
  target: string;
  hasSecret: boolean;
  to: string[];
  createdAt: number;
}

export interface DeliveryView {
  id: number;
  ruleId: number | null;
  channelId: number;
  issueId: number | null;
  kind: string;
  trigger: string | null;
  title: string;
  status: NotificationRow["status"];
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
  sentAt: number | null;
  /** a row for people rather than a channel (channelId 0): issue_owners or suspect_commits */
  target: "issue_owners" | "suspect_commits" | null;
}

/** Whether an issue's alerts are muted, and until when (null: until unmuted, or not muted). */
export interface IssueMuteState {
  muted: boolean;
  until: number | null;
}

export interface AlertsOverview {
  canManage: boolean;
  rules: AlertRule[];
  channels: ChannelView[];
  /** the viewer's own choice: does this project email them */
  emailOptOut: boolean;
  /** the installation has SMTP: email channels can deliver */
  emailConfigured: boolean;
}

export interface AlertServices {
  overview(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<AlertsOverview>;
  createRule(viewer: Viewer, orgSlug: string, projectSlug: string, input: unknown): Promise<AlertRule>;
  updateRule(viewer: Viewer, orgSlug: string, projectSlug: string, ruleId: number, input: unknown): Promise<AlertRule>;
  deleteRule(viewer: Viewer, orgSlug: string, projectSlug: string, ruleId: number): Promise<void>;
  getRule(viewer: Viewer, orgSlug: string, projectSlug: string, ruleId: number): Promise<AlertRule>;
  /** Saved even when the outbound policy would refuse its address; then `warning` says so and names the setting. */
  createChannel(viewer: Viewer, orgSlug: string, projectSlug: string, input: unknown): Promise<ChannelView & { warning: string | null }>;
  deleteChannel(viewer: Viewer, orgSlug: string, projectSlug: string, channelId: number): Promise<void>;
  /** Queues a test message and waits (up to `waitMs`) for the remote's answer. */
  testChannel(viewer: Viewer, orgSlug: string, projectSlug: string, channelId: number, waitMs?: number): Promise<DeliveryView>;
  deliveries(viewer: Viewer, orgSlug: string, projectSlug: string, q?: { ruleId?: number; limit?: number }): Promise<DeliveryView[]>;
  retryNow(viewer: Viewer, orgSlug: string, projectSlug: string, notificationId: number): Promise<DeliveryView>;
  setEmailOptOut(viewer: Viewer, orgSlug: string, projectSlug: string, optOut: boolean): Promise<void>;
  /** Mutes an issue's alerts until `until` (epoch ms) or, with null, until unmuted (members and up); answers the new state. */
  muteIssue(viewer: Viewer, orgSlug: string, issueId: number, until: number | null): Promise<IssueMuteState>;
  unmuteIssue(viewer: Viewer, orgSlug: string, issueId: number): Promise<void>;
  issueMute(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueMuteState>;
}

export interface AlertServiceDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectOrThrow: Access["projectOrThrow"];
  requireScope(viewer: Viewer, scope: string): void;
  /** SMTP is configured (the alerts page says how to set it up otherwise) */
  emailConfigured: boolean;
  /** tests: how often "send a test" looks for the answer */
  pollMs?: number;
  /** the delivery loop's outbound policy: a channel it would refuse is saved with a warning */
  webhookPolicy: OutboundPolicy;
  /** tests: DNS answers for the save-time check */
  resolve?: Resolver;
}

// The permission table decides; a screen shows the rule and channel controls only when this is true.
const canManage = (org: OrgSummary) => permits(org.role, { kind: "session" }, "alert.write");

export function channelView(c: AlertChannel): ChannelView {
  let target = "";
  if (c.kind === "email") target = c.config.to?.length ? c.config.to.join(", ") : "project members";
  else if (c.kind === "telegram") target = `chat ${c.config.chatId ?? ""}`;
  else if (c.config.url && URL.canParse(c.config.url)) {
    const u = new URL(c.config.url);
    // Webhook URLs carry their credentials in the path: show where, not the key.
    target = `${u.protocol}//${u.host}${u.pathname.length > 1 ? "/…" : "/"}`;
  }
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    target,
    hasSecret: Boolean(c.config.secret || c.config.botToken || c.config.token || c.config.routingKey || c.config.apiKey),
    to: c.config.to ?? [],
    createdAt: c.createdAt,
  };
}

export function deliveryView(n: NotificationRow): DeliveryView {
  let title = n.kind;
  try {
    const m = JSON.parse(n.payload) as AlertMessage;
    if (m.kind === "alert" && m.issue) title = `${m.issue.shortId} ${m.issue.title}`;
    else if (m.kind === "release" && m.release) {
      const h = heldEntry(m);
      title = `${h.shortId}: ${h.title}`;
    } else if (m.kind === "digest") title = `${m.heldCount ?? 0} held back by the hourly cap`;
    else if (m.kind === "test") title = "Test message";
    else if ((m as { kind: string }).kind === "resolve") {
      const r = m as unknown as IncidentResolve;
      title = `Resolved: ${r.issue.shortId} ${r.issue.title}`;
    }
  } catch {
    // keep the kind
  }
  return {
    id: n.id,
    ruleId: n.ruleId,
    channelId: n.channelId,
    issueId: n.issueId,
    kind: n.kind,
    trigger: n.trigger,
    title,
    status: n.status,
    attempts: n.attempts,
    nextAttemptAt: n.nextAttemptAt,
    lastError: n.lastError,
    responseStatus: n.responseStatus,
    responseBody: n.responseBody,
    createdAt: n.createdAt,
    sentAt: n.sentAt,
    target: targetOf(n.target),
  };
}

function targetOf(json: string | null): DeliveryView["target"] {
  if (!json) return null;
  try {
    const t = (JSON.parse(json) as { type?: unknown }).type;
    return t === "issue_owners" || t === "suspect_commits" ? t : null;
  } catch {
    return null;
  }
}

export function createAlertServices(deps: AlertServiceDeps): AlertServices {
  const { db, now, membershipOrThrow, projectOrThrow } = deps;

  const access = (viewer: Viewer, orgSlug: string, projectSlug: string, write: boolean) =>
    projectOrThrow(viewer, orgSlug, projectSlug, write ? "alert.write" : "alert.read");

  async function checkChannels(project: ProjectRow, ids: number[]): Promise<void> {
    const own = new Set((await listChannels(db, project.id)).map((c) => c.id));
    const bad = ids.findIndex((id) => !own.has(id));
    if (bad !== -1)
      throw new AppError("validation_failed", undefined, {
        fields: [{ field: `channelIds.${bad}`, rule: "exists", message: "no such channel in this project" }],
      });
  }

  async function issueAccess(viewer: Viewer, orgSlug: string, issueId: number, write: boolean) {
    const org = await membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, write ? "alert.mute" : "event.read");
    const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
    const project = issue ? await findProjectById(db, issue.projectId) : undefined;
    if (!issue || !project || project.orgId !== org.id || !canSeeProject(org, project.id))
      throw new AppError("not_found", "Issue not found.");
    return issue;
  }

  const svc: AlertServices = {
    async overview(viewer, orgSlug, projectSlug) {
      const { org, project } = await access(viewer, orgSlug, projectSlug, false);
      return {
        canManage: canManage(org),
        rules: await listRules(db, project.id),
        channels: (await listChannels(db, project.id)).map(channelView),
        emailOptOut: await emailOptedOut(db, viewer.userId, project.id),
        emailConfigured: deps.emailConfigured,
      };
    },
    async getRule(viewer, orgSlug, projectSlug, ruleId) {
      const { project } = await access(viewer, orgSlug, projectSlug, false);
      const rule = Number.isSafeInteger(ruleId) ? await findRule(db, project.id, ruleId) : undefined;
      if (!rule) throw new AppError("not_found", "Alert rule not found.");
      return rule;
    },
    async createRule(viewer, orgSlug, projectSlug, input) {
      const { project } = await access(viewer, orgSlug, projectSlug, true);
      const settings = parseRuleInput(input, now());
      await checkChannels(project, settings.channelIds);
      return writeTx(db, (tx) => insertRule(tx, project.id, settings, now()));
    },
    async updateRule(viewer, orgSlug, projectSlug, ruleId, input) {
      const { project } = await access(viewer, orgSlug, projectSlug, true);
      const settings = parseRuleInput(input, now());
      await checkChannels(project, settings.channelIds);
      const rule = Number.isSafeInteger(ruleId)
        ? await writeTx(db, (tx) => updateRule(tx, project.id, ruleId, settings, now()))
        : undefined;
      if (!rule) throw new AppError("not_found", "Alert rule not found.");
      return rule;
    },
    async deleteRule(viewer, orgSlug, projectSlug, ruleId) {
      const { project } = await access(viewer, orgSlug, projectSlug, true);
      const gone = Number.isSafeInteger(ruleId) && (await writeTx(db, (tx) => deleteRule(tx, project.id, ruleId)));
      if (!gone) throw new AppError("not_found", "Alert rule not found.");
    },
    async createChannel(viewer, orgSlug, projectSlug, input) {
      const { project } = await access(viewer, orgSlug, projectSlug, true);
      const c = parseChannelInput(input);
      const saved = channelView(await writeTx(db, (tx) => insertChannel(tx, project.id, c, now())));
      // Kinds without a URL of their own post to their public service (PagerDuty, Telegram…).
      const refused = c.config.url ? await refusedTarget(c.config.url, deps.webhookPolicy, deps.resolve) : null;
      return { ...saved, warning: refused ? `Deliveries to this channel will be refused: ${refused}.` : null };
    },
    async deleteChannel(viewer, orgSlug, projectSlug, channelId) {
      const { project } = await access(viewer, orgSlug, projectSlug, true);
      const inUse = (await listRules(db, project.id)).find((r) => r.channelIds.includes(channelId));
      if (inUse) throw new AppError("conflict", `The rule "${inUse.name}" sends to this channel; remove it from the rule first.`);
      const gone = Number.isSafeInteger(channelId) && (await writeTx(db, (tx) => deleteChannel(tx, project.id, channelId)));
      if (!gone) throw new AppError("not_found", "Channel not found.");
    },
    async testChannel(viewer, orgSlug, projectSlug, channelId, waitMs = 15_000) {
      const { org, project } = await access(viewer, orgSlug, projectSlug, true);
      const channel = (await listChannels(db, project.id)).find((c) => c.id === channelId);
      if (!channel) throw new AppError("not_found", "Channel not found.");
      const message: TestMessage = {
        v: MESSAGE_VERSION,
        kind: "test",
        org: { slug: org.slug },
        project: { id: project.id, slug: project.slug, name: project.name },
        channel: { id: channel.id, name: channel.name },
        path: alertsSettingsPath(org.slug, project.slug),
      };
      const deliveryId = randomUUID();
      await writeTx(db, (tx) =>
        insertNotifications(tx, [
          {
            projectId: project.id,
            ruleId: null,
            channelId: channel.id,
            issueId: null,
            kind: "test",
            trigger: null,
            payload: JSON.stringify(message),
            status: "pending",
            deliveryId,
            now: now(),
          },
        ]),
      );
      const row = await db.kysely.selectFrom("notifications").select("id").where("delivery_id", "=", deliveryId).executeTakeFirstOrThrow();
      // The delivery loop answers within its poll interval; a timeout shows the row as still pending.
      const deadline = Date.now() + waitMs;
      for (;;) {
        const n = await findNotification(db, Number(row.id));
        if (!n) throw new AppError("not_found", "Test message vanished.");
        const settled = n.status !== "pending" || (n.attempts > 0 && n.lastError !== null);
        if (settled || Date.now() >= deadline) return deliveryView(n);
        await new Promise((r) => setTimeout(r, deps.pollMs ?? 200));
      }
    },
    async deliveries(viewer, orgSlug, projectSlug, q = {}) {
      const { project } = await access(viewer, orgSlug, projectSlug, false);
      const limit = Number.isSafeInteger(q.limit) ? Math.min(200, Math.max(1, q.limit as number)) : 50;
      const ruleId = Number.isSafeInteger(q.ruleId) ? q.ruleId : undefined;
      return (await listNotifications(db, project.id, { ruleId, limit })).map(deliveryView);
    },
    async retryNow(viewer, orgSlug, projectSlug, notificationId) {
      const { project } = await access(viewer, orgSlug, projectSlug, true);
      const ok =
        Number.isSafeInteger(notificationId) && (await writeTx(db, (tx) => retryNotification(tx, project.id, notificationId, now())));
      const n = ok ? await findNotification(db, notificationId) : undefined;
      if (!n) throw new AppError("not_found", "No failed or waiting delivery with this id.");
      return deliveryView(n);
    },
    async setEmailOptOut(viewer, orgSlug, projectSlug, optOut) {
      const { project } = await access(viewer, orgSlug, projectSlug, false);
      await writeTx(db, (tx) => setEmailOptOut(tx, viewer.userId, project.id, optOut));
    },
    async muteIssue(viewer, orgSlug, issueId, until) {
      const issue = await issueAccess(viewer, orgSlug, issueId, true);
      if (until !== null && !(until > now()))
        throw new AppError("validation_failed", undefined, {
          fields: [{ field: "until", rule: "future", message: "must be in the future" }],
        });
      await writeTx(db, (tx) => setIssueMute(tx, issue.id, until, now()));
      return { muted: true, until };
    },
    async unmuteIssue(viewer, orgSlug, issueId) {
      const issue = await issueAccess(viewer, orgSlug, issueId, true);
      await writeTx(db, (tx) => clearIssueMute(tx, issue.id));
    },
    async issueMute(viewer, orgSlug, issueId) {
      const issue = await issueAccess(viewer, orgSlug, issueId, false);
      const m = await issueMute(db, issue.id);
      const muted = m !== undefined && (m.until === null || m.until > now());
      return { muted, until: muted ? (m?.until ?? null) : null };
    },
  };
  return svc;
}
