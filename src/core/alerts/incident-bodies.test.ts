import { describe, expect, test } from "vitest";
import { type IncidentResolve, incidentRequest } from "./incident-bodies";
import { type IssueAlert, MESSAGE_VERSION } from "./message";

const alert: IssueAlert = {
  v: MESSAGE_VERSION,
  kind: "alert",
  trigger: "new_issue",
  rule: { id: 1, name: "Page" },
  org: { slug: "acme" },
  project: { id: 3, slug: "api", name: "API" },
  issue: {
    id: 42,
    shortId: "API-7",
    title: `TypeError: ${"x".repeat(300)}`,
    culprit: "charge(src/checkout/pay.js)",
    level: "warning",
    status: "unresolved",
    substatus: "new",
    firstSeen: 1_700_000_000_000,
    lastSeen: 1_700_000_000_000,
    count: 1,
    userCount: 0,
  },
  event: { id: "e", environment: "production", release: null, topFrame: null, tags: [] },
  path: "/acme/issues/42",
};
const resolve: IncidentResolve = {
  v: MESSAGE_VERSION,
  kind: "resolve",
  org: alert.org,
  project: alert.project,
  issue: { id: 42, shortId: "API-7", title: "TypeError" },
  path: alert.path,
};

describe("incident requests", () => {
  test("PagerDuty: trigger and resolve share the issue's dedup key", () => {
    const t = incidentRequest("pagerduty", { routingKey: "k".repeat(32) }, alert, "https://errata.example", "d1");
    expect(t.url).toBe("https://events.pagerduty.com/v2/enqueue");
    const body = JSON.parse(t.body);
    expect(body).toMatchObject({
      event_action: "trigger",
      dedup_key: "errata-issue-42",
      payload: { severity: "warning", source: "production", component: "api" },
      links: [{ href: "https://errata.example/acme/issues/42" }],
    });
    const r = JSON.parse(incidentRequest("pagerduty", { routingKey: "k".repeat(32) }, resolve, "https://errata.example", "d2").body);
    expect(r).toEqual({ routing_key: "k".repeat(32), event_action: "resolve", dedup_key: "errata-issue-42" });
  });

  test("Opsgenie: create with the alias, close by alias; message within 130 characters", () => {
    const c = incidentRequest("opsgenie", { apiKey: "abc-123-def" }, alert, "https://errata.example", "d1");
    expect(c.url).toBe("https://api.opsgenie.com/v2/alerts");
    expect(c.headers.authorization).toBe("GenieKey abc-123-def");
    const body = JSON.parse(c.body);
    expect(body.message.length).toBeLessThanOrEqual(130);
    expect(body).toMatchObject({ alias: "errata-issue-42", priority: "P3", source: "Errata" });
    const x = incidentRequest(
      "opsgenie",
      { apiKey: "abc-123-def", url: "https://api.eu.opsgenie.com/" },
      resolve,
      "https://errata.example",
      "d2",
    );
    expect(x.url).toBe("https://api.eu.opsgenie.com/v2/alerts/errata-issue-42/close?identifierType=alias");
  });
});
