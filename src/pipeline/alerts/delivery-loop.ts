/**
 * The delivery loop (worker role): claims due notifications, sends them, records `sent` or the
 * error, and retries with exponential backoff (or when the remote asked) until the attempts run
 * out. Claims are leases committed before sending; PostgreSQL claims with SKIP LOCKED, so several
 * workers never take the same message. Also turns messages held back by a rule's hourly cap into
 * one digest message per channel once the rule is under its cap again.
 */
import { randomUUID } from "node:crypto";
import type { AlertsConfig, SmtpConfig } from "../../config";
import {
  alertSubjectKey,
  alertsSettingsPath,
  type HeldDigest,
  heldEntry,
  type IssueAlert,
  MESSAGE_VERSION,
  type ReleaseAlert,
} from "../../core/alerts/message";
import { backoffMs } from "../../core/alerts/retry-policy";
import type { Logger } from "../../log";
import { countNotification } from "../../metrics";
import {
  claimDueNotifications,
  heldOfRule,
  insertNotifications,
  markAttemptFailed,
  markSent,
  markSummarised,
  type NotificationRow,
  ruleMessagesSince,
  rulesWithHeld,
} from "../../storage/alerts/notifications";
import { findChannel, findRule } from "../../storage/alerts/rules";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { withBurstCounts } from "./pair-nextjs";
import { type SendDeps, sendNotification } from "./send-notification";

export interface DeliveryOptions {
  db: Db;
  config: { alerts: AlertsConfig; smtp: SmtpConfig | null; publicUrl: string };
  log: Logger;
  signal: AbortSignal;
  now?: () => number;
}

const CLAIM = 10;
const HOUR = 3_600_000;
/** Held messages are looked at this often (cheap: one indexed query). */
const SUMMARY_EVERY_MS = 10_000;
const HELD_LISTED = 50;

export async function runDeliveryLoop(opts: DeliveryOptions): Promise<void> {
  const { db, config, log, signal } = opts;
  const now = opts.now ?? Date.now;
  const deps: SendDeps = { db, alerts: config.alerts, smtp: config.smtp, publicUrl: config.publicUrl, now };
  let lastSummary = 0;
  while (!signal.aborted) {
    try {
      if (now() - lastSummary >= SUMMARY_EVERY_MS) {
        lastSummary = now();
        await summariseHeld(db, now());
      }
      const sent = await deliverDue(db, deps, log);
      if (sent === 0) await pause(config.alerts.pollMs, signal);
    } catch (err) {
      log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "alert delivery error; backing off");
      await pause(Math.max(1000, config.alerts.pollMs), signal);
    }
  }
}

/** One claim and its sends; returns how many messages were claimed. */
export async function deliverDue(db: Db, deps: SendDeps, log: Logger): Promise<number> {
  // A claim must be sent before its lease runs out even if every send times out, or another
  // worker could take (and send) the same rows again.
  const fit = Math.max(1, Math.floor(deps.alerts.leaseMs / Math.max(1, deps.alerts.timeoutMs)) - 1);
  const rows = await claimDueNotifications(db, deps.now(), Math.min(CLAIM, fit), deps.alerts.leaseMs);
  // Different channels in parallel would be faster, but one slow remote must not hold the claim
  // of the others past their lease: sends are sequential and each is bounded by the timeout.
  for (const row of rows) await deliverOne(db, row, deps, log);
  return rows.length;
}

async function deliverOne(db: Db, claimed: NotificationRow, deps: SendDeps, log: Logger): Promise<void> {
  const row = await withBurstCounts(db, claimed);
  const channel = await findChannel(db, row.channelId);
  const kind = row.target ? "email" : (channel?.kind ?? "unknown");
  const out = await sendNotification(row, channel, deps);
  const at = deps.now();
  if (out.ok) {
    await markSent(db, row.id, { responseStatus: out.status, responseBody: out.body, error: null }, at);
    countNotification(kind, "sent");
    return;
  }
  const result = { responseStatus: out.status, responseBody: out.body, error: out.error };
  if (out.retryable && row.attempts < deps.alerts.maxAttempts) {
    const wait = Math.max(backoffMs(row.attempts, deps.alerts.backoffMs, Math.random()), out.waitMs ?? 0);
    await markAttemptFailed(db, row.id, result, at + wait);
    countNotification(kind, "retried");
    log.info(
      { notification: row.id, channel: kind, attempts: row.attempts, retryInMs: wait, error: out.error },
      "alert delivery failed; will retry",
    );
    return;
  }
  await markAttemptFailed(db, row.id, result, null);
  countNotification(kind, "failed");
  log.warn({ notification: row.id, channel: kind, attempts: row.attempts, error: out.error }, "alert delivery failed");
}

/**
 * Rules whose hourly cap held messages back: once the rule is under its cap again, one digest
 * message per channel lists what was held, and the held rows are marked summarised.
 */
export async function summariseHeld(db: Db, now: number): Promise<number> {
  let digests = 0;
  for (const ruleId of await rulesWithHeld(db, 20)) {
    digests += await writeTx(db, async (tx) => {
      const held = await heldOfRule(tx, ruleId);
      const first = held[0];
      if (!first) return 0;
      const rule = await findRule(tx, first.projectId, ruleId);
      if (!rule) {
        await markSummarised(
          tx,
          held.map((h) => h.id),
        );
        return 0;
      }
      const recent = await ruleMessagesSince(tx, ruleId, now - HOUR);
      if (recent >= rule.hourlyCap * Math.max(1, rule.channelIds.length)) return 0;
      const alerts = held.map((h) => JSON.parse(h.payload) as IssueAlert | ReleaseAlert);
      // One line per alert (each channel held its own copy of the same alert).
      const seen = new Set<string>();
      const unique = alerts.filter((a, i) => {
        const key = `${alertSubjectKey(a)}:${a.trigger}:${held[i]?.createdAt}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      const a0 = unique[0] as IssueAlert | ReleaseAlert;
      const message: HeldDigest = {
        v: MESSAGE_VERSION,
        kind: "digest",
        rule: { id: rule.id, name: rule.name },
        org: a0.org,
        project: a0.project,
        held: unique.slice(0, HELD_LISTED).map((a, i) => ({ ...heldEntry(a), at: held[i]?.createdAt ?? now })),
        heldCount: unique.length,
        path: alertsSettingsPath(a0.org.slug, a0.project.slug),
      };
      await insertNotifications(
        tx,
        rule.channelIds.map((channelId) => ({
          projectId: rule.projectId,
          ruleId: rule.id,
          channelId,
          issueId: null,
          kind: "digest",
          trigger: null,
          payload: JSON.stringify(message),
          status: "pending",
          deliveryId: randomUUID(),
          now,
        })),
      );
      await markSummarised(
        tx,
        held.map((h) => h.id),
      );
      return 1;
    });
  }
  return digests;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
