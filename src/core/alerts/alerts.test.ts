import { describe, expect, test } from "vitest";
import { parseIssueSearch } from "../search/parse-query";
import { conditionHolds, filtersPass, frequencyReachable, frequencyStep, lifecycleTrigger, throttleAllows } from "./match-rule";
import { type IssueAlert, topFrameOf } from "./message";
import { renderHtml, renderText } from "./render-text";
import { backoffMs, requestedWaitMs, retryableStatus } from "./retry-policy";
import { parseChannelInput, parseRuleInput } from "./rule-input";
import type { AlertSubject, RuleFilters } from "./types";
import { webhookRequest } from "./webhook-bodies";

const NOW = Date.UTC(2026, 0, 1);
const MIN = 60_000;

const subject = (over: Partial<AlertSubject["event"]> = {}): AlertSubject => ({
  projectSlug: "web",
  issue: {
    id: 1,
    title: "TypeError: x is undefined",
    culprit: "app/checkout.ts in pay",
    level: "error",
    status: "unresolved",
    substatus: "new",
    firstSeen: NOW - 5 * MIN,
    lastSeen: NOW,
    eventCount: 3,
    userCount: 1,
  },
  event: {
    level: "error",
    environment: "production",
    release: "1.0.0",
    tags: [
      ["environment", "production"],
      ["browser", "Chrome 120"],
      ["url", "https://shop.example/checkout"],
    ],
    hasInAppFrame: true,
    ...over,
  },
});

const noFilters: RuleFilters = { environments: [], levels: [], tags: [], maxIssueAgeMinutes: null, inAppOnly: false, query: "" };

describe("rule triggers", () => {
  test("lifecycle triggers fire only when armed", () => {
    const rule = { triggers: { newIssue: true, regression: false, unignored: true, frequency: null, crashFree: null } };
    expect(lifecycleTrigger(rule, { created: true, regressed: false, unignored: false })).toBe("new_issue");
    expect(lifecycleTrigger(rule, { created: false, regressed: true, unignored: false })).toBeUndefined();
    expect(lifecycleTrigger(rule, { created: false, regressed: false, unignored: true })).toBe("unignored");
    expect(lifecycleTrigger(rule, { created: false, regressed: false, unignored: false })).toBeUndefined();
  });

  test("frequency: “more than 3 events” fires on the 4th in the window, not the 3rd; then only in a later window", () => {
    const trig = { events: 3, users: 0, minutes: 10 };
    let s = frequencyStep(undefined, { eventCount: 1, userCount: 0, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW);
    expect(s.fired).toBe(false);
    s = frequencyStep(s.state, { eventCount: 2, userCount: 0, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW + MIN);
    expect(s.fired).toBe(false);
    s = frequencyStep(s.state, { eventCount: 3, userCount: 0, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW + 2 * MIN);
    expect(s.fired).toBe(false);
    s = frequencyStep(s.state, { eventCount: 4, userCount: 0, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW + 2 * MIN);
    expect(s.fired).toBe(true);
    // spike: the rest of the window sends nothing
    for (let i = 5; i < 100; i++) {
      s = frequencyStep(s.state, { eventCount: i, userCount: 0, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW + 3 * MIN);
      expect(s.fired).toBe(false);
    }
    // a new window counts from its first event
    s = frequencyStep(s.state, { eventCount: 100, userCount: 0, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW + 11 * MIN);
    expect(s.fired).toBe(false);
    expect(s.state.baseEvents).toBe(99);
  });

  test("frequency on users: more than N new distinct users of the issue", () => {
    const trig = { events: 0, users: 1, minutes: 5 };
    let s = frequencyStep(undefined, { eventCount: 10, userCount: 4, newUser: true, firstSeen: NOW - 3_600_000 }, trig, NOW);
    expect(s.fired).toBe(false);
    s = frequencyStep(s.state, { eventCount: 11, userCount: 4, newUser: false, firstSeen: NOW - 3_600_000 }, trig, NOW + 1000);
    expect(s.fired).toBe(false);
    s = frequencyStep(s.state, { eventCount: 12, userCount: 5, newUser: true, firstSeen: NOW - 3_600_000 }, trig, NOW + 2000);
    expect(s.fired).toBe(true);
  });

  test("frequency on a young issue counts all its events; below the threshold nothing is read", () => {
    const trig = { events: 3, users: 0, minutes: 10 };
    expect(frequencyReachable(trig, 3, 0)).toBe(false);
    expect(frequencyReachable(trig, 4, 0)).toBe(true);
    const s = frequencyStep(undefined, { eventCount: 4, userCount: 0, newUser: false, firstSeen: NOW - MIN }, trig, NOW);
    expect(s).toMatchObject({ fired: true, changed: true, state: { windowStart: NOW - MIN, baseEvents: 0 } });
  });

  test("throttle: at most once per issue every T", () => {
    expect(throttleAllows(null, 30, NOW)).toBe(true);
    expect(throttleAllows(NOW - 29 * MIN, 30, NOW)).toBe(false);
    expect(throttleAllows(NOW - 30 * MIN, 30, NOW)).toBe(true);
    expect(throttleAllows(NOW, 0, NOW)).toBe(true);
  });
});

describe("rule filters", () => {
  const pass = (f: Partial<RuleFilters>, s = subject()) => {
    const filters = { ...noFilters, ...f };
    return filtersPass(filters, filters.query ? parseIssueSearch(filters.query, NOW).conditions : [], s, NOW);
  };
  test("environment, level, tags, age, in-app", () => {
    expect(pass({})).toBe(true);
    expect(pass({ environments: ["production"] })).toBe(true);
    expect(pass({ environments: ["staging"] })).toBe(false);
    expect(pass({ levels: ["fatal"] })).toBe(false);
    expect(pass({ tags: [{ key: "browser", op: "equals", value: "Chrome 120" }] })).toBe(true);
    expect(pass({ tags: [{ key: "browser", op: "equals", value: "Chrome" }] })).toBe(false);
    expect(pass({ tags: [{ key: "url", op: "contains", value: "CHECKOUT" }] })).toBe(true);
    expect(pass({ tags: [{ key: "missing", op: "contains", value: "" }] })).toBe(false);
    expect(pass({ maxIssueAgeMinutes: 10 })).toBe(true);
    expect(pass({ maxIssueAgeMinutes: 1 })).toBe(false);
    expect(pass({ inAppOnly: true }, subject({ hasInAppFrame: false }))).toBe(false);
  });
  test("the stream's search language, judged in memory", () => {
    expect(pass({ query: "is:unresolved level:error browser:Chrome*" })).toBe(true);
    expect(pass({ query: "!environment:production" })).toBe(false);
    expect(pass({ query: "checkout" })).toBe(true);
    expect(pass({ query: '"not in title"' })).toBe(false);
    expect(pass({ query: "project:web firstSeen:-1h" })).toBe(true);
    expect(pass({ query: "is:regressed" })).toBe(false);
    expect(pass({ query: "has:browser !has:user" })).toBe(true);
    expect(conditionHolds({ kind: "level", values: ["warning"], negated: true }, subject())).toBe(true);
  });
});

describe("rule and channel input", () => {
  test("defaults and validation name the field", () => {
    const r = parseRuleInput({ name: "R", triggers: { newIssue: true } }, NOW);
    expect(r).toMatchObject({ enabled: true, hourlyCap: 60, throttleMinutes: 30, channelIds: [], filters: noFilters });
    expect(() => parseRuleInput({ name: "R", triggers: {} }, NOW)).toThrow(/at least one trigger/);
    try {
      parseRuleInput({ name: "R", triggers: { newIssue: true }, filters: { query: "is:bogus" } }, NOW);
      expect.unreachable();
    } catch (e) {
      expect((e as { fields: unknown[] }).fields).toEqual([expect.objectContaining({ field: "filters.query", rule: "invalid_query" })]);
    }
  });
  test("channels", () => {
    expect(parseChannelInput({ kind: "slack", name: "ops", config: { url: "https://hooks.slack.com/x" } }).kind).toBe("slack");
    expect(() => parseChannelInput({ kind: "slack", name: "ops", config: { url: "ftp://x" } })).toThrow();
    expect(() => parseChannelInput({ kind: "carrier-pigeon", name: "x", config: {} })).toThrow();
    expect(parseChannelInput({ kind: "email", name: "team" }).config).toEqual({ to: [] });
  });
});

describe("retries", () => {
  test("exponential backoff; Retry-After and Discord retry_after win", () => {
    expect(backoffMs(1, 1000, 0.5)).toBe(1000);
    expect(backoffMs(2, 1000, 0.5)).toBe(4000);
    expect(backoffMs(3, 1000, 0.5)).toBe(16000);
    expect(requestedWaitMs(429, { "retry-after": "7" }, "", NOW)).toBe(7000);
    expect(requestedWaitMs(503, { "retry-after": new Date(NOW + 5000).toUTCString() }, "", NOW)).toBe(5000);
    expect(requestedWaitMs(429, {}, '{"message":"You are being rate limited.","retry_after":1.5,"global":false}', NOW)).toBe(1500);
    expect(requestedWaitMs(400, {}, "", NOW)).toBeUndefined();
    expect([429, 500, 503, 408].every(retryableStatus)).toBe(true);
    expect([400, 401, 404].some(retryableStatus)).toBe(false);
  });
});

describe("messages", () => {
  const alert: IssueAlert = {
    v: 1,
    kind: "alert",
    trigger: "new_issue",
    rule: { id: 1, name: "r" },
    org: { slug: "acme" },
    project: { id: 1, slug: "web", name: "web" },
    issue: {
      id: 9,
      shortId: "WEB-9",
      title: "<img src=x onerror=alert(1)> @everyone",
      culprit: "pay",
      level: "error",
      status: "unresolved",
      substatus: "new",
      firstSeen: NOW,
      lastSeen: NOW,
      count: 1,
      userCount: 0,
    },
    event: { id: "e", environment: "prod", release: null, topFrame: { function: "pay", filename: "app.ts", lineno: 3 }, tags: [] },
    path: "/acme/issues/9",
  };
  test("never raw HTML or mentions from the event", () => {
    const html = renderHtml(alert, "https://errata.example");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(renderText(alert, "https://errata.example")).toContain("https://errata.example/acme/issues/9");
    const discord = JSON.parse(webhookRequest("discord", { url: "https://d/x" }, alert, "https://e", "id").body);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    const slack = JSON.parse(webhookRequest("slack", { url: "https://s/x" }, alert, "https://e", "id").body);
    // plain_text is shown literally; mrkdwn and the notification text are escaped
    expect(slack.text).not.toContain("<img");
    expect(JSON.stringify(slack.blocks.filter((b: { text?: { type: string } }) => b.text?.type === "mrkdwn"))).not.toContain("<img");
  });
  test("top frame: innermost in-app frame", () => {
    const frames = [
      { function: "main", filename: "a.js", in_app: true, lineno: 1 },
      { function: "lib", filename: "node_modules/x.js", in_app: false, lineno: 2 },
    ];
    expect(topFrameOf({ exception: { values: [{ stacktrace: { frames } }] } } as never)).toEqual({
      function: "main",
      filename: "a.js",
      lineno: 1,
    });
  });
});
