/**
 * Resolving an issue resolves its incidents (issue 30): inside the transaction that resolves the
 * issue, one `resolve` message is queued in the outbox for each PagerDuty / Opsgenie channel that
 * was sent an alert about it, so the delivery loop resolves the PagerDuty incident (same dedup key)
 * and closes the Opsgenie alert (same alias) with the usual retries and delivery log.
 */
import { randomUUID } from "node:crypto";
import { INCIDENT_KINDS, type IncidentResolve } from "../../core/alerts/incident-bodies";
import { type IssueAlert, MESSAGE_VERSION } from "../../core/alerts/message";
import { incidentAlertsOfIssue, insertNotifications } from "../../storage/alerts/notifications";
import type { Tx } from "../../storage/dialect";

export async function queueIncidentResolves(tx: Tx, issueId: number, at: number): Promise<void> {
  const alerts = await incidentAlertsOfIssue(tx, issueId, INCIDENT_KINDS);
  const rows = alerts.flatMap((a) => {
    let sent: IssueAlert;
    try {
      sent = JSON.parse(a.payload) as IssueAlert;
    } catch {
      return [];
    }
    const message: IncidentResolve = {
      v: MESSAGE_VERSION,
      kind: "resolve",
      org: sent.org,
      project: sent.project,
      issue: { id: issueId, shortId: sent.issue.shortId, title: sent.issue.title },
      path: sent.path,
    };
    return [
      {
        projectId: a.projectId,
        ruleId: a.ruleId,
        channelId: a.channelId,
        issueId,
        kind: "resolve" as const,
        trigger: "resolved",
        payload: JSON.stringify(message),
        status: "pending" as const,
        deliveryId: randomUUID(),
        now: at,
      },
    ];
  });
  await insertNotifications(tx, rows);
}
