import { describe, expect, test } from "vitest";
import { crashFreeRate } from "../sessions";
import { crashFreeOf, crashFreeStep, crashFreeVerdict } from "./crash-free";
import { alertSubjectKey, facts, headline, heldEntry, type ReleaseAlert } from "./message";
import { renderHtml, renderText } from "./render-text";
import { DEFAULT_CRASH_FREE, parseRuleInput } from "./rule-input";
import type { RuleReleaseState } from "./types";
import { webhookRequest } from "./webhook-bodies";

const NOW = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const trig = { belowPercent: 95, minSessions: 50 };

describe("crash-free verdict", () => {
  test("below minSessions says nothing, however many crashed", () => {
    expect(crashFreeVerdict({ total: 49, crashed: 49 }, trig)).toBe("too_few");
    expect(crashFreeVerdict({ total: 0, crashed: 0 }, { belowPercent: 95, minSessions: 1 })).toBe("too_few");
    expect(crashFreeVerdict({ total: 50, crashed: 49 }, trig)).toBe("below");
  });

  test("exact at the boundary: 95 % crash-free is not below 95 %", () => {
    expect(crashFreeVerdict({ total: 1000, crashed: 50 }, trig)).toBe("healthy");
    expect(crashFreeVerdict({ total: 1000, crashed: 51 }, trig)).toBe("below");
    // a threshold with hundredths, where floating point would wobble
    const fine = { belowPercent: 99.9, minSessions: 1 };
    expect(crashFreeVerdict({ total: 1000, crashed: 1 }, fine)).toBe("healthy");
    expect(crashFreeVerdict({ total: 1000, crashed: 2 }, fine)).toBe("below");
    // 100 %: any crash is below
    expect(crashFreeVerdict({ total: 10_000, crashed: 1 }, { belowPercent: 100, minSessions: 1 })).toBe("below");
    expect(crashFreeVerdict({ total: 10_000, crashed: 0 }, { belowPercent: 100, minSessions: 1 })).toBe("healthy");
  });

  test("the rate is the release page's definition", () => {
    expect(crashFreeOf({ total: 200, crashed: 30 })).toBe(crashFreeRate({ total: 200, crashed: 30 }));
    expect(crashFreeOf({ total: 200, crashed: 30 })).toBe(0.85);
  });
});

describe("crash-free latch", () => {
  const step = (s: RuleReleaseState | undefined, total: number, crashed: number, now = NOW, throttle = 30) =>
    crashFreeStep(s, { total, crashed }, trig, throttle, now);

  test("fires once per drop; more crashes do not fire again; recovery re-arms; the next drop fires", () => {
    const healthy = step(undefined, 100, 1);
    expect(healthy).toMatchObject({ fired: false, changed: false });
    const drop = step(undefined, 100, 20);
    expect(drop).toEqual({ fired: true, changed: true, state: { below: true, lastNotifiedAt: NOW } });
    const worse = step(drop.state, 200, 100, NOW + 60 * MIN);
    expect(worse).toMatchObject({ fired: false, changed: false });
    // recovery (≥ threshold): the state changes, nothing is sent
    const recovered = step(drop.state, 10_000, 100, NOW + 2 * 60 * MIN);
    expect(recovered).toEqual({ fired: false, changed: true, state: { below: false, lastNotifiedAt: NOW } });
    const again = step(recovered.state, 10_000, 600, NOW + 3 * 60 * MIN);
    expect(again).toEqual({ fired: true, changed: true, state: { below: true, lastNotifiedAt: NOW + 3 * 60 * MIN } });
  });

  test("too few sessions change nothing, not even a set latch", () => {
    expect(step(undefined, 10, 10)).toMatchObject({ fired: false, changed: false });
    expect(step({ below: true, lastNotifiedAt: NOW }, 10, 0)).toMatchObject({ fired: false, changed: false, state: { below: true } });
  });

  test("the rule's throttle bounds a release flapping around the threshold; it stays armed meanwhile", () => {
    const drop = step(undefined, 100, 20);
    const recovered = step(drop.state, 1000, 20, NOW + MIN);
    const soon = step(recovered.state, 1001, 60, NOW + 2 * MIN);
    expect(soon).toMatchObject({ fired: false, changed: false, state: { below: false } });
    const later = step(recovered.state, 1001, 60, NOW + 31 * MIN);
    expect(later).toMatchObject({ fired: true, state: { below: true } });
    // throttle 0: every drop sends
    expect(step(recovered.state, 1001, 60, NOW + 2 * MIN, 0)).toMatchObject({ fired: true });
  });
});

describe("crash-free rule input", () => {
  test("defaults, bounds and hundredths", () => {
    const r = parseRuleInput({ name: "R", triggers: { crashFree: {} } }, NOW);
    expect(r.triggers).toEqual({
      newIssue: false,
      regression: false,
      unignored: false,
      frequency: null,
      crashFree: DEFAULT_CRASH_FREE,
      match: "any",
    });
    expect(DEFAULT_CRASH_FREE).toEqual({ belowPercent: 95, minSessions: 50 });
    expect(
      parseRuleInput({ name: "R", triggers: { crashFree: { belowPercent: 99.955, minSessions: 1 } } }, NOW).triggers.crashFree,
    ).toEqual({
      belowPercent: 99.96,
      minSessions: 1,
    });
    expect(parseRuleInput({ name: "R", triggers: { crashFree: { belowPercent: 100 } } }, NOW).triggers.crashFree?.belowPercent).toBe(100);
    const fieldOf = (input: unknown) => {
      try {
        parseRuleInput(input, NOW);
        return "accepted";
      } catch (e) {
        return (e as { fields: Array<{ field: string }> }).fields.map((f) => f.field).join(",");
      }
    };
    expect(fieldOf({ name: "R", triggers: { crashFree: { belowPercent: 0 } } })).toBe("triggers.crashFree.belowPercent");
    expect(fieldOf({ name: "R", triggers: { crashFree: { belowPercent: 100.5 } } })).toBe("triggers.crashFree.belowPercent");
    expect(fieldOf({ name: "R", triggers: { crashFree: { belowPercent: -3 } } })).toBe("triggers.crashFree.belowPercent");
    expect(fieldOf({ name: "R", triggers: { crashFree: { minSessions: 0 } } })).toBe("triggers.crashFree.minSessions");
    expect(fieldOf({ name: "R", triggers: { crashFree: { minSessions: 2.5 } } })).toBe("triggers.crashFree.minSessions");
    expect(fieldOf({ name: "R", triggers: { crashFree: null } })).toBe("triggers");
  });
});

describe("release messages", () => {
  const m: ReleaseAlert = {
    v: 1,
    kind: "release",
    trigger: "crash_free",
    rule: { id: 4, name: "Release health" },
    org: { slug: "acme" },
    project: { id: 1, slug: "web", name: "Web" },
    release: {
      version: "web@<b>2</b>*_@here",
      environments: ["production"],
      sessions: 120,
      crashed: 30,
      crashFreeSessions: 0.75,
    },
    threshold: { belowPercent: 95, minSessions: 50 },
    path: `/acme/releases/${encodeURIComponent("web@<b>2</b>*_@here")}`,
  };
  const URL = "https://errata.example";

  test("headline and facts say release, rate, sessions, threshold", () => {
    expect(headline(m)).toBe("Crash-free sessions below 95% in Web: release web@<b>2</b>*_@here at 75.00%");
    expect(facts(m)).toEqual([
      ["Release", "web@<b>2</b>*_@here"],
      ["Project", "Web"],
      ["Environment", "production"],
      ["Crash-free sessions", "75.00%"],
      ["Threshold", "below 95% (at least 50 sessions)"],
      ["Sessions", "120"],
      ["Crashed", "30"],
    ]);
    expect(heldEntry(m)).toEqual({
      trigger: "crash_free",
      shortId: "web@<b>2</b>*_@here",
      title: "Crash-free sessions 75.00% (below 95%)",
      path: m.path,
    });
    expect(alertSubjectKey(m)).toBe("release:web@<b>2</b>*_@here");
  });

  test("email text and HTML: the release page link, the release as text only", () => {
    const text = renderText(m, URL);
    expect(text).toContain("Crash-free sessions: 75.00%");
    expect(text).toContain("Sessions: 120");
    expect(text).toContain(`${URL}/acme/releases/web%40%3Cb%3E2%3C%2Fb%3E*_%40here`);
    const html = renderHtml(m, URL);
    expect(html).not.toContain("<b>2</b>");
    expect(html).toContain("web@&lt;b&gt;2&lt;/b&gt;*_@here");
    expect(html).toContain(`href="${URL}/acme/releases/web%40%3Cb%3E2%3C%2Fb%3E*_%40here"`);
  });

  test("every webhook kind carries the release facts, escaped for its markup", () => {
    const body = (kind: Parameters<typeof webhookRequest>[0]) =>
      webhookRequest(kind, { url: "https://hook.example/x", botToken: "1:a", chatId: "1" }, m, URL, "d-1").body;
    const generic = JSON.parse(body("webhook"));
    expect(generic).toMatchObject({
      version: 1,
      delivery_id: "d-1",
      url: `${URL}${m.path}`,
      message: { kind: "release", trigger: "crash_free", release: { version: m.release.version, sessions: 120, crashFreeSessions: 0.75 } },
    });
    const slack = JSON.parse(body("slack"));
    const fields = slack.blocks.find((b: { fields?: unknown }) => b.fields).fields.map((f: { text: string }) => f.text);
    expect(fields).toContain("*Crash-free sessions*\n75.00%");
    expect(fields).toContain("*Release*\nweb@&lt;b&gt;2&lt;/b&gt;*_@here");
    const discord = JSON.parse(body("discord"));
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0].url).toBe(`${URL}${m.path}`);
    expect(discord.embeds[0].fields).toContainEqual({ name: "Release", value: "web@\u200b<b\\>2</b\\>\\*\\_@\u200bhere", inline: true });
    const teams = JSON.parse(body("teams"));
    expect(teams.attachments[0].content.body).toContainEqual({
      type: "FactSet",
      facts: expect.arrayContaining([{ title: "Sessions", value: "120" }]),
    });
    expect(JSON.parse(body("mattermost")).attachments[0].fields).toContainEqual({ short: true, title: "Crashed", value: "30" });
    expect(JSON.stringify(JSON.parse(body("googlechat")).cardsV2)).toContain("&lt;b&gt;");
    expect(JSON.parse(body("ntfy"))).toMatchObject({ priority: 4, click: `${URL}${m.path}` });
    expect(JSON.parse(body("telegram")).text).toContain("Crash-free sessions: 75.00%");
  });
});
