/**
 * Sends one notification on its channel: email through SMTP, everything else as an HTTP POST
 * through the outbound policy (src/net/safe-request.ts: the resolved address is checked at connect
 * time and on every redirect hop). Every request carries the notification's delivery id
 * (`X-Errata-Delivery`, `Idempotency-Key`; the email's Message-ID) so a message sent again after a
 * crash between send and record is recognisable by the receiver.
 */
import { createHmac } from "node:crypto";
import type { AlertsConfig, SmtpConfig } from "../../config";
import { type IncidentKind, type IncidentResolve, incidentRequest, isIncidentKind } from "../../core/alerts/incident-bodies";
import { type AlertMessage, headline } from "../../core/alerts/message";
import { renderHtml, renderText } from "../../core/alerts/render-text";
import { requestedWaitMs, retryableStatus } from "../../core/alerts/retry-policy";
import { type AlertChannel, WEBHOOK_POLICY_SETTINGS } from "../../core/alerts/types";
import { type WebhookRequest, webhookRequest } from "../../core/alerts/webhook-bodies";
import { MailNotConfiguredError, sendMail } from "../../net/mailer";
import { OutboundError, safeRequest } from "../../net/safe-request";
import type { Db } from "../../storage/db";
import { projectAudienceEmails } from "../../storage/ownership/recipients";
import { parseTarget, targetRecipients } from "./target-recipients";

export interface SendDeps {
  db: Db;
  alerts: AlertsConfig;
  smtp: SmtpConfig | null;
  publicUrl: string;
  now: () => number;
}

export type SendOutcome =
  | { ok: true; status: number | null; body: string }
  | { ok: false; retryable: boolean; error: string; status: number | null; body: string | null; waitMs?: number };

const MAX_RESPONSE_BYTES = 64 * 1024;

export async function sendNotification(
  n: { deliveryId: string; projectId: number; payload: string; kind?: string; issueId?: number | null; target?: string | null },
  channel: AlertChannel | undefined,
  deps: SendDeps,
): Promise<SendOutcome> {
  // A row for people (issue owners, suspect commit authors) has no channel: it is an email.
  if (n.target) channel = { id: 0, projectId: n.projectId, name: "people", kind: "email", config: {}, createdAt: 0 };
  if (!channel) return { ok: false, retryable: false, error: "the channel was deleted", status: null, body: null };
  let message: AlertMessage | IncidentResolve;
  try {
    message = JSON.parse(n.payload) as AlertMessage | IncidentResolve;
  } catch {
    return { ok: false, retryable: false, error: "the stored message is unreadable", status: null, body: null };
  }
  if (n.kind === "resolve" && !isIncidentKind(channel.kind))
    return { ok: false, retryable: false, error: "only incident channels resolve", status: null, body: null };
  if (channel.kind === "email") return sendEmail(n, channel, message, deps);
  return sendWebhook(n.deliveryId, channel, message, deps);
}

async function recipients(
  n: { projectId: number; issueId?: number | null; target?: string | null },
  channel: AlertChannel,
  db: Db,
): Promise<{ to: string[]; reason: string | null; error?: string }> {
  if (n.target) {
    const target = parseTarget(n.target);
    if (!target) return { to: [], reason: null, error: "the stored target is unreadable" };
    const found = await targetRecipients(db, n.projectId, n.issueId ?? null, target);
    return { to: found.to, reason: found.reason, ...(found.to.length === 0 ? { error: `no recipients: ${found.reason}` } : {}) };
  }
  // A "project members" channel (no explicit addresses) mails who may see the project: the same
  // audience that bounds alerts to owners, never a member outside the project's teams.
  const to = channel.config.to?.length ? channel.config.to : await projectAudienceEmails(db, n.projectId);
  return { to, reason: null, ...(to.length === 0 ? { error: "no recipients (nobody who can see the project gets its email)" } : {}) };
}

async function sendEmail(
  n: { deliveryId: string; projectId: number; issueId?: number | null; target?: string | null },
  channel: AlertChannel,
  m: AlertMessage | IncidentResolve,
  deps: SendDeps,
): Promise<SendOutcome> {
  if (m.kind === "resolve") return { ok: false, retryable: false, error: "only incident channels resolve", status: null, body: null };
  const { to, reason, error } = await recipients(n, channel, deps.db);
  if (error) return { ok: false, retryable: false, error, status: null, body: null };
  try {
    const info = await sendMail(
      deps.smtp,
      {
        to,
        subject: `[Errata] ${headline(m)}`.slice(0, 250),
        text: renderText(m, deps.publicUrl),
        html: renderHtml(m, deps.publicUrl),
        idempotencyKey: n.deliveryId,
      },
      deps.alerts.timeoutMs,
    );
    // The log says who got it and why (owners by which rule, or the fallthrough).
    return { ok: true, status: null, body: reason ? `${info.response} — to ${to.join(", ")} (${reason})` : info.response };
  } catch (err) {
    if (err instanceof MailNotConfiguredError) return { ok: false, retryable: false, error: err.message, status: null, body: null };
    const e = err as { responseCode?: number; message?: string; code?: string };
    // 5xx SMTP replies are permanent (bad recipient, refused); connection trouble and 4xx are not.
    const permanent = typeof e.responseCode === "number" && e.responseCode >= 500;
    return {
      ok: false,
      retryable: !permanent,
      error: `SMTP: ${e.message ?? String(err)}`.slice(0, 500),
      status: e.responseCode ?? null,
      body: null,
    };
  }
}

async function sendWebhook(
  deliveryId: string,
  channel: AlertChannel,
  m: AlertMessage | IncidentResolve,
  deps: SendDeps,
): Promise<SendOutcome> {
  const kind = channel.kind as Exclude<AlertChannel["kind"], "email">;
  let req: WebhookRequest;
  if (isIncidentKind(kind)) req = incidentRequest(kind, channel.config, m, deps.publicUrl, deliveryId);
  else if (m.kind === "resolve") return { ok: false, retryable: false, error: "only incident channels resolve", status: null, body: null };
  else req = webhookRequest(kind as Exclude<typeof kind, IncidentKind>, channel.config, m, deps.publicUrl, deliveryId);
  const headers: Record<string, string> = {
    ...req.headers,
    "user-agent": "Errata-Alerts/1",
    "x-errata-delivery": deliveryId,
    "idempotency-key": deliveryId,
  };
  if (kind === "webhook" && channel.config.secret) {
    // Signed over "<timestamp>.<body>" so a captured request cannot be replayed later with a new time.
    const ts = String(Math.floor(deps.now() / 1000));
    headers["x-errata-timestamp"] = ts;
    headers["x-errata-signature"] = `sha256=${createHmac("sha256", channel.config.secret).update(`${ts}.${req.body}`).digest("hex")}`;
  }
  try {
    const res = await safeRequest(
      req.url,
      { method: "POST", headers, body: req.body, timeoutMs: deps.alerts.timeoutMs, maxBodyBytes: MAX_RESPONSE_BYTES, maxRedirects: 3 },
      { allowPrivate: deps.alerts.allowPrivateWebhooks, allowHosts: deps.alerts.webhookAllowHosts, settings: WEBHOOK_POLICY_SETTINGS },
    );
    const body = res.body.toString("utf8").slice(0, 2000);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body };
    return {
      ok: false,
      retryable: retryableStatus(res.status),
      error: `HTTP ${res.status}`,
      status: res.status,
      body,
      waitMs: requestedWaitMs(res.status, res.headers, body, deps.now()),
    };
  } catch (err) {
    if (err instanceof OutboundError) {
      const retryable = err.code === "timeout" || err.code === "network";
      return { ok: false, retryable, error: `${err.code}: ${err.message}`.slice(0, 500), status: null, body: null };
    }
    return { ok: false, retryable: true, error: (err as Error)?.message?.slice(0, 500) ?? String(err), status: null, body: null };
  }
}
