import { describe, expect, test } from "vitest";
import { incidentRequest } from "./incident-bodies";
import { headline, heldEntry, type IssueAlert } from "./message";
import { skewSummary } from "./nextjs-alert";
import { renderHtml, renderText } from "./render-text";
import { CHANNEL_KINDS, type ChannelKind } from "./types";
import { webhookRequest } from "./webhook-bodies";

const NOW = Date.UTC(2026, 0, 1);

function alert(
  nextjs: IssueAlert["nextjs"],
  title = "Error: An error occurred in the Server Components render (digest 907901174)",
): IssueAlert {
  return {
    v: 1,
    kind: "alert",
    trigger: "new_issue",
    rule: { id: 1, name: "r" },
    org: { slug: "acme" },
    project: { id: 1, slug: "shop", name: "shop" },
    issue: {
      id: 2,
      shortId: "SHOP-2",
      title,
      culprit: "ErrorBoundary (app/error.tsx)",
      level: "error",
      status: "unresolved",
      substatus: "new",
      firstSeen: NOW,
      lastSeen: NOW,
      count: 1,
      userCount: 0,
    },
    event: { id: "e".repeat(32), environment: "production", release: "shop@2", topFrame: null, tags: [] },
    ...(nextjs ? { nextjs } : {}),
    path: "/acme/digest/907901174",
  };
}

const pair = alert({
  digest: {
    value: "907901174",
    key: "907901174",
    side: "client",
    path: "/acme/digest/907901174",
    server: {
      issueId: 1,
      shortId: "SHOP-1",
      title: "Error: Invoice service refused",
      culprit: "loadInvoice (app/boom/page.tsx)",
      path: "/acme/issues/1",
    },
  },
});
const skew = alert(
  { skew: { release: "shop@2", users: 3, events: 5, minutes: 4 } },
  "Deploy skew (shop@2): ChunkLoadError: Loading chunk 7 failed.",
);

describe("Next.js alert messages", () => {
  test("every channel shows the server error, its culprit, the digest and links the digest page", () => {
    const kinds = CHANNEL_KINDS.filter(
      (k): k is Exclude<ChannelKind, "email" | "pagerduty" | "opsgenie"> => k !== "email" && k !== "pagerduty" && k !== "opsgenie",
    );
    const bodies = kinds.map(
      (k) => webhookRequest(k, { url: "https://hooks.example/x", botToken: "1:a", chatId: "1" }, pair, "https://errata.example", "d").body,
    );
    bodies.push(renderText(pair, "https://errata.example"), renderHtml(pair, "https://errata.example"));
    // The incident channels (PagerDuty, Opsgenie) carry the same headline and the digest page's link.
    for (const k of ["pagerduty", "opsgenie"] as const) {
      bodies.push(
        incidentRequest(k, { url: "https://incidents.example/x", routingKey: "r", apiKey: "a" }, pair, "https://errata.example", "d").body,
      );
    }
    for (const body of bodies) {
      expect(body).toContain("Invoice service refused");
      expect(body).toContain("907901174");
      expect(body).toContain("https://errata.example/acme/digest/907901174");
    }
    // the culprit is in every channel that shows detail lines (all but ntfy's title-only push and Slack's fallback)
    expect(renderText(pair, "https://errata.example")).toContain("Culprit: loadInvoice (app/boom/page.tsx)");
    expect(renderHtml(pair, "https://errata.example")).toContain("Culprit: loadInvoice (app/boom/page.tsx)");
    expect(headline(pair)).toBe("New issue in shop: server error reached the browser (digest 907901174): Error: Invoice service refused");
    // the hourly cap's summary lists it by the server error too
    expect(heldEntry(pair).title).toContain("Invoice service refused");
  });

  test("deploy skew: one line with the release, the count and the minutes; the advice in every channel", () => {
    expect(headline(skew)).toBe("Deploy skew after release shop@2 in shop: 3 users hit stale chunks in 4 minutes");
    expect(skewSummary({ release: null, users: 0, events: 1, minutes: 0 })).toBe("1 event hit stale chunks in 1 minute");
    for (const k of ["slack", "teams", "discord", "mattermost", "googlechat", "telegram", "ntfy"] as const) {
      const body = webhookRequest(k, { url: "https://hooks.example/x", botToken: "1:a", chatId: "1" }, skew, "https://e.example", "d").body;
      expect(body, k).toContain("Deploy skew after release shop@2");
      expect(body, k).toContain("deploymentId");
    }
    expect(renderHtml(skew, "https://e.example")).toContain("skew protection");
  });

  test("a decoded React error headlines as #code and its message", () => {
    const m = alert(
      { react: { code: 418, message: "Hydration failed because the server rendered text didn't match the client." } },
      "Error: Hydration failed",
    );
    expect(headline(m)).toBe("New issue in shop: #418 Hydration failed because the server rendered text didn't match the client.");
  });
});
