/**
 * The triage reads on both databases: events go through the real digest (which fills the 0007
 * statistics), then services.issueStream answers the SPEC §2 search language, the four sorts with
 * keyset pagination, sparklines, tag distributions, autocompletion, pasted event ids, live counts,
 * the issue page's data and an issue's filtered events.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects } from "../helpers/test-db";
import { codeOf, createWorld, DAY, MINUTE, T0, type World } from "../lifecycle/helpers";
import { drain, hexId } from "../pipeline/helpers";

const HOUR = 60 * MINUTE;

interface Spec {
  message: string;
  level?: string;
  environment?: string;
  release?: string;
  user?: { id?: string; email?: string };
  tags?: Record<string, string>;
  at?: number;
  digest?: string;
}

let seq = 0;

async function send(w: World, ...specs: Spec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const s of specs) {
    seq += 1;
    const at = s.at ?? w.clock.now;
    const eventId = hexId(`stream:${seq}`);
    ids.push(eventId);
    const body = {
      event_id: eventId,
      platform: "javascript",
      level: s.level ?? "error",
      timestamp: at / 1000,
      exception: { values: [{ type: "StreamError", value: s.message, mechanism: { type: "generic", handled: true } }] },
      ...(s.environment ? { environment: s.environment } : {}),
      ...(s.release ? { release: s.release } : {}),
      ...(s.user ? { user: s.user } : {}),
      tags: { ...(s.tags ?? {}), ...(s.digest ? { digest: s.digest } : {}) },
      ...(s.digest ? { contexts: { nextjs: { digest: s.digest } } } : {}),
    };
    await enqueueMany(w.db, [
      { projectId: w.projectId, keyId: 1, receivedAt: at, clientIp: null, kind: "store", body: Buffer.from(JSON.stringify(body)) },
    ]);
  }
  const r = await drain(w.db, w.clock.now);
  if (r.failed > 0) throw new Error(`digest failed for ${r.failed} events`);
  return ids;
}

describe.each(await dialects())("issue stream on %s", (dialect) => {
  let w: World;
  const titles = async (query: string, extra: Record<string, unknown> = {}) =>
    (await w.services.issueStream.list(w.owner, "acme", { query, status: "all", ...extra })).items
      .map((i) => i.title.replace("StreamError: ", ""))
      .sort();

  beforeAll(async () => {
    w = await createWorld(dialect);
    w.clock.now = T0;
    await send(
      w,
      {
        message: "alpha checkout",
        environment: "production",
        release: "web@1.0.0",
        user: { id: "1", email: "ada@example.com" },
        tags: { browser: "Chrome 120" },
        at: T0 - 2 * HOUR,
      },
      {
        message: "alpha checkout",
        environment: "production",
        release: "web@1.0.1",
        user: { id: "2", email: "bob@example.com" },
        tags: { browser: "Firefox 121" },
        at: T0 - HOUR,
      },
      { message: "alpha checkout", environment: "staging", release: "web@1.0.1", tags: { browser: "Chrome 120" }, at: T0 - 10 * MINUTE },
      { message: "beta login", level: "warning", environment: "staging", tags: { region: "eu west" }, at: T0 - 3 * DAY },
      { message: "gamma digest", environment: "production", digest: "2183930132", at: T0 - 20 * DAY },
    );
  });
  afterAll(async () => {
    await w?.close();
  });

  test("search language: filters, negation, tags, times, text, lists", async () => {
    expect(await titles("")).toEqual(["alpha checkout", "beta login", "gamma digest"]);
    expect(await titles("environment:production level:error alpha")).toEqual(["alpha checkout"]);
    expect(await titles("!environment:production")).toEqual(["beta login"]);
    expect(await titles('region:"eu west"')).toEqual(["beta login"]);
    expect(await titles("browser:Chrome*")).toEqual(["alpha checkout"]);
    expect(await titles("user.email:bob@example.com")).toEqual(["alpha checkout"]);
    expect(await titles("user.id:2")).toEqual(["alpha checkout"]);
    expect(await titles("has:user")).toEqual(["alpha checkout"]);
    expect(await titles("!has:user")).toEqual(["beta login", "gamma digest"]);
    expect(await titles("release:web@1.0.1")).toEqual(["alpha checkout"]);
    expect(await titles("firstSeen:-24h")).toEqual(["alpha checkout"]);
    expect(await titles("lastSeen:+2d")).toEqual(["beta login", "gamma digest"]);
    expect(await titles("digest:2183930132")).toEqual(["gamma digest"]);
    expect(await titles("has:digest")).toEqual(["gamma digest"]);
    expect(await titles("level:[warning,fatal]")).toEqual(["beta login"]);
    expect(await titles("project:web")).toEqual(["alpha checkout", "beta login", "gamma digest"]);
    expect(await titles("project:nope")).toEqual([]);
    expect(await titles("", { environment: "staging", level: "warning" })).toEqual(["beta login"]);
    expect(await codeOf(w.services.issueStream.list(w.owner, "acme", { query: "is:sleeping" }))).toBe("invalid_query");
  });

  test("status default, assignment, is: shorthands", async () => {
    const beta = await w.issueOf("beta login");
    await w.services.issueActions.update(w.member, "acme", beta, { status: "resolved" });
    const gamma = await w.issueOf("gamma digest");
    await w.services.issueActions.update(w.member, "acme", gamma, { assignedTo: w.member.email });
    const page = await w.services.issueStream.list(w.owner, "acme", {});
    expect(page.status).toBe("unresolved");
    expect(page.items.map((i) => i.id)).not.toContain(beta);
    expect(await titles("is:resolved", { status: undefined })).toEqual(["beta login"]);
    expect((await w.services.issueStream.list(w.member, "acme", { query: "assigned:me" })).items.map((i) => i.id)).toEqual([gamma]);
    expect(await titles("assigned:member@example.com")).toEqual(["gamma digest"]);
    expect(await titles("is:unassigned")).toEqual(["alpha checkout", "beta login"]);
    expect(await titles("!assigned:member@example.com")).toEqual(["alpha checkout", "beta login"]);
    expect(await codeOf(w.services.issueStream.list(w.owner, "acme", { query: "assigned:nobody@example.com" }))).toBe("invalid_query");
    await w.services.issueActions.update(w.member, "acme", beta, { status: "unresolved" });
  });

  test("sorts with keyset pagination, sparklines, badges", async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await w.services.issueStream.list(w.owner, "acme", { sort: "freq", limit: 1, cursor, status: "all" });
      all.push(...page.items.map((i) => i.title));
      cursor = page.nextCursor;
    } while (cursor);
    expect(all[0]).toContain("alpha");
    expect(all).toHaveLength(3);
    expect(
      await codeOf(w.services.issueStream.list(w.owner, "acme", { sort: "new", cursor: Buffer.from("freq:3:1").toString("base64url") })),
    ).toBe("validation_failed");

    const byNew = await w.services.issueStream.list(w.owner, "acme", { sort: "new", status: "all" });
    expect(byNew.items.map((i) => i.title.replace("StreamError: ", ""))).toEqual(["alpha checkout", "beta login", "gamma digest"]);

    const day = await w.services.issueStream.list(w.owner, "acme", { query: "alpha" });
    const alpha = day.items[0];
    expect(alpha?.spark).toHaveLength(24);
    expect(alpha?.spark.reduce((a, b) => a + b, 0)).toBe(3);
    // T0 is on the hour: its bucket (the last) is empty; 10:00 has one event, 11:00 two.
    expect(alpha?.spark.slice(-3)).toEqual([1, 2, 0]);
    const twoWeeks = await w.services.issueStream.list(w.owner, "acme", { query: "beta", stats: "14d" });
    expect(twoWeeks.items[0]?.spark).toHaveLength(14);
    expect(twoWeeks.items[0]?.spark.reduce((a, b) => a + b, 0)).toBe(1);
    const gamma = (await w.services.issueStream.list(w.owner, "acme", { query: "gamma" })).items[0];
    expect(gamma?.hasDigest).toBe(true);
    expect(alpha?.hasDigest).toBe(false);
  });

  test("pasted event id, autocompletion, filter menus, live counts", async () => {
    const [eventId] = await send(w, { message: "delta paste", environment: "production" });
    const delta = await w.issueOf("delta paste");
    expect(await w.services.issueStream.openPasted(w.owner, "acme", ` ${eventId?.toUpperCase()} `)).toEqual({ issueId: delta, eventId });
    expect(await w.services.issueStream.openPasted(w.owner, "acme", "f".repeat(32))).toBeNull();
    expect(await w.services.issueStream.openPasted(w.owner, "acme", "alpha")).toBeNull();
    const short = (await w.services.issues.get(w.owner, "acme", delta)).shortId;
    expect(await w.services.issueStream.openPasted(w.owner, "acme", short.toLowerCase())).toEqual({ issueId: delta, eventId: null });

    const keys = await w.services.issueStream.suggest(w.owner, "acme", {});
    expect(keys).toEqual(expect.arrayContaining(["environment", "browser", "region", "user.email"]));
    expect(await w.services.issueStream.suggest(w.owner, "acme", { key: "browser", prefix: "Ch" })).toEqual(["Chrome 120"]);
    expect(await w.services.issueStream.suggest(w.owner, "acme", { key: "environment", prefix: "" })).toEqual(["production", "staging"]);

    const options = await w.services.issueStream.filterOptions(w.owner, "acme", {});
    expect(options.environments).toEqual(["production", "staging"]);
    expect(options.releases).toEqual(expect.arrayContaining(["web@1.0.0", "web@1.0.1"]));
    expect(options.members.map((m) => m.email)).toContain("member@example.com");

    expect(await w.services.issueStream.changesSince(w.owner, "acme", { since: T0 - 30 * MINUTE })).toMatchObject({
      updated: 2,
      created: 1,
    });
  });

  test("issue page data and the events list", async () => {
    const alpha = await w.issueOf("alpha checkout");
    await w.services.issueActions.comment(w.member, "acme", alpha, "looks like **the cart**");
    const page = await w.services.issueStream.issuePage(w.owner, "acme", alpha);
    expect(page.issue.count).toBe(3);
    expect(page.role).toBe("owner");
    expect(page.trend.hourly).toHaveLength(14 * 24);
    expect(page.trend.hourly.reduce((a, b) => a + b, 0)).toBe(3);
    expect(page.trend.daily).toHaveLength(90);
    const env = page.tags.find((t) => t.key === "environment");
    expect(env).toEqual({
      key: "environment",
      total: 3,
      top: [
        { value: "production", count: 2 },
        { value: "staging", count: 1 },
      ],
    });
    expect(page.activity.find((a) => a.kind === "comment")?.data).toEqual({ text: "looks like **the cart**" });
    expect(page.nav.newer).toBeNull();
    expect(page.nav.older).not.toBeNull();
    expect(page.nav.latest).toBe(page.event?.eventId);

    const oldest = await w.services.issueStream.issuePage(w.owner, "acme", alpha, { event: "oldest" });
    expect(oldest.event?.eventId).toBe(page.nav.first);
    expect(oldest.nav.older).toBeNull();
    const middle = await w.services.issueStream.issuePage(w.owner, "acme", alpha, { event: page.nav.older ?? "" });
    expect(middle.nav).toMatchObject({ older: page.nav.first, newer: page.event?.eventId });
    expect(await codeOf(w.services.issueStream.issuePage(w.owner, "acme", alpha, { event: "0".repeat(32) }))).toBe("not_found");

    const events = await w.services.issueStream.events(w.owner, "acme", alpha, { query: "environment:production" });
    expect(events.items).toHaveLength(2);
    expect((await w.services.issueStream.events(w.owner, "acme", alpha, { query: "user.email:ada@example.com" })).items).toHaveLength(0);
    expect((await w.services.issueStream.events(w.owner, "acme", alpha, { query: "user.id:1" })).items).toHaveLength(1);
    const first = await w.services.issueStream.events(w.owner, "acme", alpha, { limit: 2 });
    const rest = await w.services.issueStream.events(w.owner, "acme", alpha, { limit: 2, cursor: first.nextCursor });
    expect([...first.items, ...rest.items].map((e) => e.eventId)).toHaveLength(3);
    expect(await codeOf(w.services.issueStream.events(w.owner, "acme", alpha, { query: "browser:x" }))).toBe("invalid_query");
  });

  test("the REST list runs the same search, without a default status", async () => {
    const page = await w.services.issues.list(w.owner, "acme", { query: "environment:staging" });
    expect(page.items.map((i) => i.title.replace("StreamError: ", "")).sort()).toEqual(["alpha checkout", "beta login"]);
  });
});
