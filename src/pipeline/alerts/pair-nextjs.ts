/**
 * One notification for a Next.js server error and its browser mirror (issue 44), and one per
 * deploy-skew burst with the burst's count:
 *   - a message about either side of a digest waits `pairMs` for the other side;
 *   - the browser mirror arriving while the server error's message waits is folded into it (the
 *     message names the browser issue and leaves at once); when that message already left, the
 *     mirror sends nothing of its own;
 *   - the server error arriving while the mirror's message waits replaces it (the mirror's rows
 *     become `paired`) and leaves at once, naming the mirror;
 *   - a deploy-skew message waits `burstMs`; its counts are read again when it is sent
 *     (delivery-loop.ts), so it tells the burst, not its first event.
 * Per rule: each rule's message is paired with that rule's own message about the other side.
 */

import type { IssueAlert } from "../../core/alerts/message";
import { issuePath } from "../../core/alerts/message";
import type { DigestSideRef } from "../../core/alerts/nextjs-alert";
import { markPaired, type NotificationRow, ruleAlertsOfIssue, setNotificationPayload } from "../../storage/alerts/notifications";
import type { Db } from "../../storage/db";
import type { Tx } from "../../storage/dialect";
import { getIssue } from "../../storage/issues/issues";

/** How far back the other side's message is looked for (as the issue page links digests). */
const DIGEST_LINK_MS = 7 * 24 * 3_600_000;

/** What to do with this rule's message: send it (not before `notBefore`), or nothing (`folded`). */
export type PairingOutcome = { send: true; notBefore: number } | { send: false };

export async function pairNextjsMessage(
  tx: Tx,
  ruleId: number,
  message: IssueAlert,
  at: { now: number; pairMs: number; burstMs: number },
): Promise<PairingOutcome> {
  const now = { send: true as const, notBefore: at.now };
  const n = message.nextjs;
  const d = n?.digest;
  if (!d) return n?.skew ? { send: true, notBefore: at.now + at.burstMs } : now;
  const other = d.side === "client" ? d.server : d.browser;
  if (!other) return { send: true, notBefore: at.now + at.pairMs };
  const theirs = (await ruleAlertsOfIssue(tx, ruleId, other.issueId, at.now - DIGEST_LINK_MS)).filter(
    (r) => digestKeyOf(r.payload) === d.key,
  );
  const waiting = theirs.filter((r) => r.status === "pending" && r.attempts === 0 && r.sentAt === null);
  if (d.side === "client") {
    // The server error's message names this mirror: one notification, leaving now.
    if (waiting.length > 0) {
      const me: DigestSideRef = {
        issueId: message.issue.id,
        shortId: message.issue.shortId,
        title: message.issue.title,
        culprit: message.issue.culprit,
        path: issuePath(message.org.slug, message.issue.id),
      };
      for (const r of waiting) {
        const m = JSON.parse(r.payload) as IssueAlert;
        if (!m.nextjs?.digest) continue;
        m.nextjs.digest.browser = me;
        m.path = m.nextjs.digest.path;
        await setNotificationPayload(tx, r.id, JSON.stringify(m), at.now);
      }
      return { send: false };
    }
    // The server error was already told about (or is failing, held by the cap): nothing new to say.
    if (theirs.some((r) => r.status !== "paired")) return { send: false };
    return now;
  }
  // The server side: its message replaces the mirror's that waits for it.
  await markPaired(
    tx,
    waiting.map((r) => r.id),
  );
  return now;
}

function digestKeyOf(payload: string): string | null {
  try {
    return (JSON.parse(payload) as IssueAlert).nextjs?.digest?.key ?? null;
  } catch {
    return null;
  }
}

/**
 * A deploy-skew message about to be sent the first time: its counts become the burst's so far
 * (the issue's users, events and minutes from its first to its latest event), written back so the
 * delivery log shows what was sent. Other messages are returned as they are.
 */
export async function withBurstCounts(db: Db, row: NotificationRow): Promise<NotificationRow> {
  if (row.kind !== "alert" || row.issueId === null || row.attempts > 1 || !row.payload.includes('"skew"')) return row;
  const m = JSON.parse(row.payload) as IssueAlert;
  const skew = m.nextjs?.skew;
  const issue = skew ? await getIssue(db, row.issueId) : undefined;
  if (!skew || !issue) return row;
  skew.users = issue.userCount;
  skew.events = issue.eventCount;
  skew.minutes = Math.ceil(Math.max(0, issue.lastSeen - issue.firstSeen) / 60_000);
  m.issue.count = issue.eventCount;
  m.issue.userCount = issue.userCount;
  m.issue.lastSeen = issue.lastSeen;
  const payload = JSON.stringify(m);
  if (payload === row.payload) return row;
  await setNotificationPayload(db.kysely, row.id, payload);
  return { ...row, payload };
}
