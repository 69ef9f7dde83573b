/**
 * Uptime checks against a real local HTTP server that the test turns up, down, slow and wrong, on
 * both databases: results stored, down after N failures opens an issue with the failing responses,
 * up resolves it; private addresses refused unless the policy allows them.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseUptimeConfig } from "../../src/core/monitors/uptime";
import { runUptimeChecks } from "../../src/pipeline/uptime-checker";
import type { Db } from "../../src/storage/db";
import { listActivity } from "../../src/storage/issues/activity";
import { getIssue } from "../../src/storage/issues/issues";
import { getUptimeMonitor, insertUptimeMonitor, listUptimeResults } from "../../src/storage/monitors/uptime";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject } from "../pipeline/helpers";

type Mode = "up" | "down" | "slow" | "wrong";
const PUBLIC_URL = "https://errata.example/";
const VERSION = (JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

describe.each(await dialects())("uptime checks on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let target: http.Server;
  let url: string;
  let mode: Mode = "up";
  const held: http.ServerResponse[] = [];
  const userAgents = new Map<string, string | undefined>();

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    target = http.createServer((req, res) => {
      userAgents.set(req.url ?? "", req.headers["user-agent"]);
      if (mode === "slow") {
        // Never answers (the check times out, whatever the machine load); released at the end.
        held.push(res);
        return;
      }
      if (mode === "down") res.writeHead(503).end("maintenance");
      else res.writeHead(200, { "content-type": "text/plain" }).end(mode === "up" ? "status: healthy" : "status: degraded");
    });
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await new Promise((r) => target.close(r));
    await close();
  });

  test("up, down ×2 → issue, slow and wrong stay down, up → resolved", async () => {
    const projectId = await createProject(db, "uptime");
    const cfg = parseUptimeConfig({ url, keyword: "healthy", timeout_ms: 2000, failure_threshold: 2, recovery_threshold: 1 });
    if (!cfg.ok) throw new Error(cfg.message);
    const T = Date.UTC(2026, 10, 20, 12);
    const m = await insertUptimeMonitor(db, { projectId, name: "API health", config: cfg.value }, T);
    const policy = { allowPrivate: true, allowHosts: [] };
    let now = T;
    const step = async (next: Mode) => {
      mode = next;
      expect(await runUptimeChecks({ db, policy, now: () => now, publicUrl: PUBLIC_URL })).toBe(1);
      now += 60_000;
      return getUptimeMonitor(db, m.id);
    };
    expect(await step("up")).toMatchObject({ state: "up", issueId: null });
    expect(await step("down")).toMatchObject({ state: "up", failures: 1 });
    const down = await step("down");
    expect(down).toMatchObject({ state: "down", failures: 2 });
    const issueId = down?.issueId ?? 0;
    expect(await getIssue(db, issueId)).toMatchObject({ title: "Uptime: API health is down", status: "unresolved", eventCount: 1 });
    expect(await step("slow")).toMatchObject({ state: "down", failures: 3 });
    expect(await step("wrong")).toMatchObject({ state: "down", failures: 4 });
    // Not due yet: nothing is checked twice in one interval.
    expect(await runUptimeChecks({ db, policy, now: () => now - 60_000, publicUrl: PUBLIC_URL })).toBe(0);
    expect(await step("up")).toMatchObject({ state: "up", issueId: null });
    expect((await getIssue(db, issueId))?.status).toBe("resolved");
    expect(
      (await listActivity(db, issueId)).some((a) => a.kind === "state_change" && (a.data.uptime as { reason?: string })?.reason === "up"),
    ).toBe(true);
    const results = await listUptimeResults(db, m.id, 0);
    expect(results.map((r) => [r.up, r.status, r.error])).toEqual([
      [true, 200, null],
      [false, 200, 'keyword "healthy" not found'],
      [false, null, "timeout"],
      [false, 503, "status 503 outside 200–399"],
      [false, 503, "status 503 outside 200–399"],
      [true, 200, null],
    ]);
  });

  test("checks say who they are: User-Agent Errata-Uptime/<version> (+PUBLIC_URL), unless the monitor sets its own", async () => {
    mode = "up";
    const projectId = await createProject(db, "uptime-ua");
    const plain = parseUptimeConfig({ url: `${url}?ua=default` });
    const own = parseUptimeConfig({ url: `${url}?ua=own`, headers: { "User-Agent": "my-probe/1" } });
    if (!plain.ok || !own.ok) throw new Error("config");
    const T = Date.UTC(2026, 10, 21, 12);
    await insertUptimeMonitor(db, { projectId, name: "ua default", config: plain.value }, T);
    await insertUptimeMonitor(db, { projectId, name: "ua own", config: own.value }, T);
    await runUptimeChecks({ db, policy: { allowPrivate: true, allowHosts: [] }, now: () => T + 120_000, publicUrl: PUBLIC_URL });
    expect(userAgents.get("/health?ua=default")).toBe(`Errata-Uptime/${VERSION} (+https://errata.example)`);
    expect(userAgents.get("/health?ua=own")).toBe("my-probe/1");
  });

  test("a loopback target is refused unless the installation allows private addresses", async () => {
    mode = "up";
    const projectId = await createProject(db, "uptime-private");
    const cfg = parseUptimeConfig({ url });
    if (!cfg.ok) throw new Error(cfg.message);
    const m = await insertUptimeMonitor(db, { projectId, name: "internal", config: cfg.value }, 1000);
    await runUptimeChecks({ db, policy: { allowPrivate: false, allowHosts: [] }, now: () => 1000, publicUrl: PUBLIC_URL });
    expect((await listUptimeResults(db, m.id, 0))[0]).toMatchObject({ up: false, error: "forbidden_address" });
  });
});
