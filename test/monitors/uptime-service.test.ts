/**
 * The uptime service's one-monitor read, on both databases: every member of the org reads the
 * checks of the projects they see, with availability, response-time slots and recent results;
 * a check in a project hidden by teams, in another org, or that does not exist is `not_found`
 * alike. Creating stays with owners and admins, and its validation errors name their fields.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Role, Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { recordUptimeResult } from "../../src/storage/monitors/uptime";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

const NOW = Date.UTC(2026, 4, 10, 12, 0, 0);
const MIN = 60_000;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("uptime service reads on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: AppServices;
  const who = {} as Record<Role | "outsider", Viewer>;
  const check = {} as Record<"web" | "api" | "globex", number>;

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "https://errata.example" });
    const auth = createAuth(db, config, "x".repeat(32));
    await migrateAuth(db, config, "x".repeat(32));
    s = createServices({ db, auth, config, log: createLogger("silent"), now: () => NOW });
    for (const role of ["viewer", "member", "admin", "owner", "outsider"] as const) {
      const u = await createUserWithPassword(auth, { email: `${role}@example.com`, password: "correct horse battery", name: role });
      who[role] = { userId: u.id, email: `${role}@example.com`, name: role };
    }
    await writeTx(db, async (tx) => {
      const acme = await insertOrg(tx, { slug: "acme", name: "Acme", now: 1 });
      for (const role of ["viewer", "member", "admin", "owner"] as const)
        await upsertMember(tx, { orgId: acme.id, userId: who[role].userId, role, now: 1 });
      const globex = await insertOrg(tx, { slug: "globex", name: "Globex", now: 1 });
      await upsertMember(tx, { orgId: globex.id, userId: who.outsider.userId, role: "owner", now: 1 });
    });
    for (const name of ["web", "api"] as const) {
      await s.projects.create(who.owner, "acme", { name, platform: "node" });
      check[name] = (
        await s.uptime.create(who.admin, "acme", {
          project: name,
          name: `${name} health`,
          config: { url: `https://${name}.example/health` },
        })
      ).id;
    }
    await s.projects.create(who.outsider, "globex", { name: "site", platform: "node" });
    check.globex = (
      await s.uptime.create(who.outsider, "globex", { project: "site", name: "globex", config: { url: "https://globex.example/" } })
    ).id;
    // The web check: 3 results in the last hour (one failed), one 3 days ago.
    const results = [
      { checkedAt: NOW - 3 * 24 * 60 * MIN, up: true, status: 200, latencyMs: 80, error: null },
      { checkedAt: NOW - 3 * MIN, up: true, status: 200, latencyMs: 40, error: null },
      { checkedAt: NOW - 2 * MIN, up: false, status: 503, latencyMs: 12, error: "status 503 outside 200–399" },
      { checkedAt: NOW - MIN, up: true, status: 200, latencyMs: 50, error: null },
    ];
    for (const r of results)
      await writeTx(db, (tx) => recordUptimeResult(tx, check.web, r, { state: "up", failures: 0, successes: 1, issueId: null }));
  });
  afterAll(async () => close());

  test("every member reads a check: availability, response-time slots of the last 24 h, results newest first", async () => {
    for (const role of ["viewer", "member", "admin", "owner"] as const) {
      const d = await s.uptime.get(who[role], "acme", check.web);
      expect(d).toMatchObject({ id: check.web, name: "web health", projectSlug: "web", state: "up", paused: false, issueId: null });
      expect(d.availability).toEqual({ day: 2 / 3, week: 3 / 4, month: 3 / 4 });
      expect(d.latency.map((x) => [x.avgMs, x.failures])).toEqual([
        [40, 0],
        [12, 1],
        [50, 0],
      ]);
      expect(d.recent.map((r) => r.latencyMs)).toEqual([50, 12, 40, 80]);
      expect(d.last).toMatchObject({ checkedAt: NOW - MIN, status: 200 });
    }
    const fresh = await s.uptime.get(who.viewer, "acme", check.api);
    expect(fresh).toMatchObject({ state: "pending", last: null, latency: [], recent: [] });
    expect(fresh.availability).toEqual({ day: null, week: null, month: null });
  });

  test("a check in another org, a hidden project or nowhere is not_found alike", async () => {
    expect(await codeOf(s.uptime.get(who.owner, "acme", check.globex))).toBe("not_found");
    expect(await codeOf(s.uptime.get(who.outsider, "globex", check.web))).toBe("not_found");
    expect(await codeOf(s.uptime.get(who.outsider, "acme", check.web))).toBe("not_found");
    expect(await codeOf(s.uptime.get(who.owner, "acme", 987_654))).toBe("not_found");
    expect(await codeOf(s.uptime.get(who.owner, "acme", -1))).toBe("not_found");
    // A token without project:read reads nothing.
    expect(await codeOf(s.uptime.get({ ...who.owner, scopes: ["org:read"] }, "acme", check.web))).toBe("forbidden");

    // Teams: the api project moves to a team the member and viewer are not in.
    await s.teams.create(who.admin, "acme", { name: "Frontend" });
    await s.teams.create(who.admin, "acme", { name: "Backend" });
    await s.teams.setProject(who.admin, "acme", "frontend", "api", false);
    await s.teams.setProject(who.admin, "acme", "backend", "api", true);
    for (const role of ["viewer", "member"] as const) {
      expect(await codeOf(s.uptime.get(who[role], "acme", check.api))).toBe("not_found");
      expect((await s.uptime.list(who[role], "acme")).map((m) => m.id)).toEqual([check.web]);
      expect((await s.uptime.get(who[role], "acme", check.web)).id).toBe(check.web);
    }
    for (const role of ["admin", "owner"] as const) expect((await s.uptime.get(who[role], "acme", check.api)).id).toBe(check.api);
  });

  test("request header values (credentials) are shown to owners and admins only", async () => {
    const made = await s.uptime.create(who.admin, "acme", {
      project: "web",
      name: "with auth",
      config: { url: "https://web.example/private", headers: { Authorization: "Bearer s3cr3t-value" } },
    });
    expect(made.config.headers).toEqual({ Authorization: "Bearer s3cr3t-value" });
    for (const role of ["viewer", "member"] as const) {
      const listed = (await s.uptime.list(who[role], "acme")).find((m) => m.id === made.id);
      expect(listed?.config.headers).toEqual({ Authorization: "[redacted]" });
      expect(JSON.stringify(await s.uptime.get(who[role], "acme", made.id))).not.toContain("s3cr3t-value");
    }
    expect((await s.uptime.get(who.owner, "acme", made.id)).config.headers).toEqual({ Authorization: "Bearer s3cr3t-value" });
  });

  test("creating: owners and admins only; validation errors name their fields", async () => {
    const input = { project: "web", name: "x", config: { url: "https://web.example/" } };
    expect(await codeOf(s.uptime.create(who.member, "acme", input))).toBe("forbidden");
    expect(await codeOf(s.uptime.create(who.viewer, "acme", input))).toBe("forbidden");
    const fieldsOf = async (raw: unknown) => {
      try {
        await s.uptime.create(who.owner, "acme", raw);
      } catch (e) {
        return (e as { fields?: Array<{ field: string; message: string }> }).fields?.map((f) => [f.field, f.message]);
      }
    };
    expect(await fieldsOf({ ...input, name: " " })).toEqual([["name", "required"]]);
    expect(await fieldsOf({ ...input, project: "nope" })).toEqual([["project", "unknown project"]]);
    expect(await fieldsOf({ ...input, config: { url: "https://x", intervalSeconds: 10 } })).toEqual([
      ["config.intervalSeconds", "must be an integer from 30 to 86400"],
    ]);
    expect(await fieldsOf({ ...input, config: { url: "https://x", statusMin: 500, statusMax: 200 } })).toEqual([
      ["config.statusMin", "expected status range must be 100–599, min ≤ max"],
    ]);
  });

  test("the API takes and answers the same names, Sentry's where it has them (intervalSeconds, timeoutMs); old snake_case still read", async () => {
    const made = await s.uptime.create(who.owner, "acme", {
      project: "web",
      name: "names",
      config: { url: "https://names.example/", intervalSeconds: 45, timeoutMs: 2500, failureThreshold: 3 },
    });
    expect(made.config).toMatchObject({ intervalSeconds: 45, timeoutMs: 2500, failureThreshold: 3 });
    expect(made.config).not.toHaveProperty("intervalS");
    const listed = (await s.uptime.list(who.owner, "acme")).find((m) => m.id === made.id);
    expect(listed?.config).toMatchObject({ intervalSeconds: 45, timeoutMs: 2500 });
    const old = await s.uptime.create(who.owner, "acme", {
      project: "web",
      name: "old names",
      config: { url: "https://names.example/old", interval_seconds: 120, timeout_ms: 3000 },
    });
    expect(old.config).toMatchObject({ intervalSeconds: 120, timeoutMs: 3000 });
  });
});
