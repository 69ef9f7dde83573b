/**
 * Incident channels (issue 30): PagerDuty's Events API v2 and Opsgenie's Alert API. An issue is
 * one incident: its dedup key (PagerDuty) or alias (Opsgenie) is `errata-issue-<id>`, so a later
 * alert for the same issue (a regression) updates the open incident rather than paging twice, and
 * resolving the issue in Errata resolves / closes it. Pure: the sender makes the call through the
 * outbound policy.
 * https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ ·
 * https://docs.opsgenie.com/docs/alert-api
 */
import { type AlertMessage, facts, headline } from "./message";
import { linkOf, renderText } from "./render-text";
import type { ChannelConfig } from "./types";
import type { WebhookRequest } from "./webhook-bodies";

export const INCIDENT_KINDS = ["pagerduty", "opsgenie"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];
export const PAGERDUTY_URL = "https://events.pagerduty.com/v2/enqueue";
export const OPSGENIE_URL = "https://api.opsgenie.com";

/** Queued when an issue that paged is resolved: the incident is resolved / closed. */
export interface IncidentResolve {
  v: number;
  kind: "resolve";
  org: { slug: string };
  project: { id: number; slug: string; name: string };
  issue: { id: number; shortId: string; title: string };
  path: string;
}

export function isIncidentKind(kind: string): kind is IncidentKind {
  return (INCIDENT_KINDS as readonly string[]).includes(kind);
}

/** One incident per issue (or per release for crash-free alerts); tests and digests their own. */
export function dedupKey(m: AlertMessage | IncidentResolve, deliveryId: string): string {
  if (m.kind === "alert" || m.kind === "resolve") return `errata-issue-${m.issue.id}`;
  if (m.kind === "release") return `errata-release-${m.project.id}-${m.release.version}`.slice(0, 255);
  return `errata-${m.kind}-${deliveryId}`;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const PD_SEVERITY: Record<string, string> = { fatal: "critical", error: "error", warning: "warning", info: "info", debug: "info" };
const OG_PRIORITY: Record<string, string> = { fatal: "P1", error: "P2", warning: "P3", info: "P4", debug: "P5" };

function levelOf(m: AlertMessage): string {
  if (m.kind === "alert") return m.issue.level;
  return m.kind === "release" ? "error" : "info";
}

export function incidentRequest(
  kind: IncidentKind,
  config: ChannelConfig,
  m: AlertMessage | IncidentResolve,
  publicUrl: string,
  deliveryId: string,
): WebhookRequest {
  const key = dedupKey(m, deliveryId);
  const json = { "content-type": "application/json" };
  const link = `${publicUrl.replace(/\/$/, "")}${m.path}`;
  if (kind === "pagerduty") {
    const url = config.url || PAGERDUTY_URL;
    if (m.kind === "resolve")
      return { url, headers: json, body: JSON.stringify({ routing_key: config.routingKey, event_action: "resolve", dedup_key: key }) };
    const details = Object.fromEntries(facts(m));
    return {
      url,
      headers: json,
      body: JSON.stringify({
        routing_key: config.routingKey,
        event_action: "trigger",
        dedup_key: key,
        payload: {
          summary: cut(headline(m), 1024),
          source: cut(m.kind === "alert" ? (m.event.environment ?? m.project.slug) : m.project.slug, 255),
          severity: PD_SEVERITY[levelOf(m)] ?? "error",
          timestamp: new Date(m.kind === "alert" ? m.issue.lastSeen : Date.now()).toISOString(),
          component: cut(m.project.slug, 255),
          class: m.kind === "alert" ? m.trigger : m.kind,
          ...(Object.keys(details).length > 0 ? { custom_details: details } : {}),
        },
        client: "Errata",
        client_url: linkOf(m, publicUrl),
        links: [{ href: linkOf(m, publicUrl), text: "Open in Errata" }],
      }),
    };
  }
  const base = (config.url || OPSGENIE_URL).replace(/\/+$/, "");
  const headers = { ...json, authorization: `GenieKey ${config.apiKey ?? ""}` };
  if (m.kind === "resolve")
    return {
      url: `${base}/v2/alerts/${encodeURIComponent(key)}/close?identifierType=alias`,
      headers,
      body: JSON.stringify({ source: "Errata", user: "Errata", note: `Resolved in Errata: ${link}` }),
    };
  const details = Object.fromEntries(facts(m).map(([k, v]) => [k, cut(v, 500)]));
  const environment = m.kind === "alert" ? m.event.environment : null;
  return {
    url: `${base}/v2/alerts`,
    headers,
    body: JSON.stringify({
      message: cut(headline(m), 130),
      alias: key,
      description: cut(renderText(m, publicUrl), 15_000),
      details,
      entity: cut(m.kind === "alert" ? m.issue.culprit || m.issue.shortId : m.project.slug, 512),
      source: "Errata",
      priority: OG_PRIORITY[levelOf(m)] ?? "P3",
      tags: ["errata", m.project.slug, ...(environment ? [environment] : [])].map((t) => cut(t, 50)),
    }),
  };
}
