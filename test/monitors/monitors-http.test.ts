/**
 * Cron monitors end to end on the built server, both databases, with the official clients:
 * @sentry/node `withMonitor` / `captureCheckIn` with monitor_config, the real `sentry-cli monitors
 * run` wrapping a command that succeeds, one that fails and one that overruns its max runtime,
 * `sentry-cli monitors list`, and a run missed while Errata was down (kill -9), detected after the
 * restart. Time is the test clock (ERRATA_TEST_CLOCK_FILE): nothing sleeps for time.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server";
import { dialects, tempDir } from "../helpers/test-db";

const execFileP = promisify(execFile);
const SENTRY_CLI = path.join(ROOT, "node_modules/@sentry/cli-linux-x64/bin/sentry-cli");
const HOUR = 3_600_000;

interface CheckInShape {
  id: string;
  status: string;
  duration: number | null;
  environment: string;
  dateCreated: string;
}

describe.each(await dialects())("cron monitors over HTTP on %s", (dialect) => {
  let server: TestServer;
  let dsn: string;
  let token: string;
  let clockFile: string;
  // A whole hour plus 30 s: the hourly schedules below have a known next run.
  const t0 = Math.floor(Date.now() / HOUR) * HOUR + 30_000;
  const setClock = (ms: number) => fs.writeFileSync(clockFile, String(ms));
  // The uptime target below is on loopback: this installation allows private addresses.
  const serverEnv = () => ({
    ERRATA_TEST_CLOCK_FILE: clockFile,
    MONITOR_TICK_MS: "200",
    UPTIME_TICK_MS: "200",
    UPTIME_ALLOW_PRIVATE: "true",
  });
  const auth = () => ({ authorization: `Bearer ${token}` });

  async function api<T>(p: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    const res = await fetch(`${server.url}/api/0/organizations/acme${p}`, {
      ...init,
      headers: { ...auth(), "content-type": "application/json", ...init.headers },
    });
    return { status: res.status, body: (await res.json()) as T };
  }
  const checkIns = async (slug: string) => (await api<CheckInShape[]>(`/monitors/${slug}/checkins/`)).body;
  /** Waits for a monitor's latest check-in status; on timeout says what was stored and what the server logged. */
  const statusOf = (slug: string, status: string) =>
    eventually(async () => (await checkIns(slug))[0]?.status === status, 60_000, `${slug} ${status}`).catch(async (err: Error) => {
      const seen = JSON.stringify(await checkIns(slug).catch(() => "unreadable"));
      throw new Error(`${err.message}; ${slug} check-ins: ${seen}; server log tail:\n${server.logs().slice(-3000)}`);
    });

  async function cli(args: string[], env: Record<string, string> = {}) {
    const childEnv: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: tempDir(), SENTRY_DSN: dsn, ...env };
    try {
      const r = await execFileP(SENTRY_CLI, args, { env: childEnv as NodeJS.ProcessEnv });
      return { code: 0, stdout: r.stdout };
    } catch (err) {
      const e = err as { code?: number; stdout?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? "" };
    }
  }

  beforeAll(async () => {
    clockFile = path.join(tempDir(), "clock");
    setClock(t0);
    server = await startServer({ dialect, env: serverEnv() });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    dsn = await server.cli("project", "create", "--org", "acme", "--name", "jobs", "--platform", "node");
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read,project:read,project:write,event:read");
  }, 120_000);
  afterAll(async () => server?.stop());

  test("@sentry/node withMonitor and captureCheckIn: monitors created from monitor_config, ok and error recorded, failure opens an issue", async () => {
    await execFileP(process.execPath, [path.join(ROOT, "test/monitors/sdk-checkins.mjs")], {
      cwd: ROOT,
      env: { ...process.env, SENTRY_DSN: dsn },
    });
    await statusOf("manual-job", "ok");
    await statusOf("sdk-job-fail", "error");
    const ok = await checkIns("sdk-job");
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ status: "ok", environment: "prod" });
    expect((await checkIns("manual-job"))[0].duration).toBe(1500);
    const { body: monitor } = await api<Record<string, unknown>>("/monitors/sdk-job/");
    expect(monitor).toMatchObject({
      slug: "sdk-job",
      status: "active",
      config: { schedule_type: "crontab", schedule: "0 * * * *", checkin_margin: 5, max_runtime: 10, timezone: "America/New_York" },
    });
    const issues = (await (await fetch(`${server.url}/api/0/projects/acme/jobs/issues/`, { headers: auth() })).json()) as Array<{
      title: string;
    }>;
    expect(issues.map((i) => i.title)).toContain("Cron failure: sdk-job-fail");
  }, 240_000);

  test("sentry-cli monitors run: success, failure (exit code kept), overrun → timeout; monitors list", async () => {
    const ok = await cli(["monitors", "run", "-s", "0 * * * *", "--check-in-margin", "5", "cli-ok", "--", "true"]);
    expect(ok.code).toBe(0);
    const fail = await cli(["monitors", "run", "-s", "0 * * * *", "cli-fail", "--", "sh", "-c", "exit 3"]);
    expect(fail.code).toBe(3);
    await eventually(async () => (await checkIns("cli-ok"))[0]?.status === "ok", 60_000, "cli-ok ok");
    await eventually(async () => (await checkIns("cli-fail"))[0]?.status === "error", 60_000, "cli-fail error");
    expect((await checkIns("cli-ok"))[0].environment).toBe("production");

    const overrun = await cli(
      [
        "monitors",
        "run",
        "-s",
        "0 * * * *",
        "--max-runtime",
        "1",
        "cli-slow",
        "--",
        process.execPath,
        path.join(ROOT, "test/monitors/overrun-job.mjs"),
      ],
      {
        CLOCK_FILE: clockFile,
        ERRATA_URL: server.url,
        ERRATA_TOKEN: token,
        MONITOR: "cli-slow",
      },
    );
    expect(overrun.code).toBe(0);
    // The late "ok" the CLI sent after the command finished does not undo the timeout.
    await eventually(
      async () => {
        const list = await checkIns("cli-slow");
        return list.length === 1 && list[0].status === "timeout" ? list : undefined;
      },
      60_000,
      "cli-slow timeout",
    );

    const list = await cli(["monitors", "list", "-o", "acme"], { SENTRY_URL: server.url, SENTRY_AUTH_TOKEN: token });
    expect(list.code).toBe(0);
    for (const slug of ["cli-ok", "cli-fail", "cli-slow", "sdk-job"]) expect(list.stdout).toContain(slug);
  }, 240_000);

  test("a run missed while Errata was down (kill -9 across the deadline) is marked after the restart, once", async () => {
    const clock = Number(fs.readFileSync(clockFile, "utf8"));
    const ok = await cli(["monitors", "run", "-s", "0 * * * *", "--check-in-margin", "5", "hourly", "--", "true"]);
    expect(ok.code).toBe(0);
    await eventually(async () => (await checkIns("hourly"))[0]?.status === "ok", 60_000, "hourly ok");
    await server.kill();
    // Down for three and a half hours: the next three whole hours passed their 5 minute margin.
    const nextHour = Math.floor(clock / HOUR) * HOUR + HOUR;
    setClock(nextHour + 2 * HOUR + 30 * 60_000);
    server = await startServer({ dialect, db: server.db, env: serverEnv() });
    // The restarted server listens on another port: so does the DSN.
    const moved = new URL(dsn);
    moved.host = new URL(server.url).host;
    dsn = moved.toString();
    const missed = await eventually(
      async () => {
        const list = await checkIns("hourly");
        return list.filter((c) => c.status === "missed").length >= 3 ? list : undefined;
      },
      60_000,
      "three missed check-ins",
    );
    expect(missed.map((c) => c.status)).toEqual(["missed", "missed", "missed", "ok"]);
    const { body: monitor } = await api<{ environments: Array<{ status: string; nextCheckIn: string }> }>("/monitors/hourly/");
    expect(monitor.environments[0].status).toBe("missed");
    expect(Date.parse(monitor.environments[0].nextCheckIn)).toBe(nextHour + 3 * HOUR);
    const issues = (await (await fetch(`${server.url}/api/0/projects/acme/jobs/issues/`, { headers: auth() })).json()) as Array<{
      title: string;
      count: string;
    }>;
    expect(issues.find((i) => i.title === "Cron failure: hourly")?.count).toBe("3");
  }, 240_000);

  test("REST create and update (pause, mute); bad input is a catalogued 400", async () => {
    const created = await api<Record<string, unknown>>("/monitors/", {
      method: "POST",
      body: JSON.stringify({
        project: "jobs",
        name: "Weekly Export",
        config: { schedule_type: "crontab", schedule: "0 4 * * 1", checkin_margin: 10 },
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: "weekly-export", config: { schedule: "0 4 * * 1", checkin_margin: 10 } });
    const paused = await api<Record<string, unknown>>("/monitors/weekly-export/", {
      method: "PUT",
      body: JSON.stringify({ status: "disabled", isMuted: true }),
    });
    expect(paused.body).toMatchObject({ status: "disabled", isMuted: true });
    const bad = await api<{ error: { code: string } }>("/monitors/", {
      method: "POST",
      body: JSON.stringify({ project: "jobs", name: "x", config: { schedule: "nope" } }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("validation_failed");
    const wrongType = await api<{ error: { code: string } }>("/monitors/weekly-export/", {
      method: "PUT",
      body: JSON.stringify({ name: 42 }),
    });
    expect(wrongType.status).toBe(400);
    expect((await api("/monitors/ghost/")).status).toBe(404);
    // A paused monitor drops check-ins: once a later check-in of another monitor is stored, the
    // paused one's (queued before it) has been processed too.
    expect((await cli(["monitors", "run", "weekly-export", "--", "true"])).code).toBe(0);
    const before = (await checkIns("cli-ok")).length;
    expect((await cli(["monitors", "run", "cli-ok", "--", "true"])).code).toBe(0);
    await eventually(async () => (await checkIns("cli-ok")).length === before + 1, 60_000, "later check-in stored");
    expect(await checkIns("weekly-export")).toEqual([]);
  }, 240_000);

  test("uptime: a check created over REST goes up, then down (issue) and up again (resolved) as the target changes", async () => {
    let healthy = true;
    const target = http.createServer((_req, res) => {
      if (healthy) res.writeHead(200).end("ok");
      else res.writeHead(500).end("broken");
    });
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    try {
      const created = await api<{ id: number }>("/uptime/", {
        method: "POST",
        body: JSON.stringify({ project: "jobs", name: "Homepage", config: { url, intervalSeconds: 30 } }),
      });
      expect(created.status).toBe(201);
      const state = async () =>
        (await api<Array<{ id: number; state: string; issueId: number | null }>>("/uptime/")).body.find((m) => m.id === created.body.id);
      // Each check waits for its slot on the test clock: move it one interval per step.
      const until = async (want: string) =>
        eventually(
          async () => {
            const m = await state();
            if (m?.state === want) return m;
            setClock(Number(fs.readFileSync(clockFile, "utf8")) + 31_000);
            return undefined;
          },
          60_000,
          `uptime ${want}`,
        );
      await until("up");
      healthy = false;
      const down = await until("down");
      expect(down.issueId).not.toBeNull();
      healthy = true;
      expect((await until("up")).issueId).toBeNull();
      const detail = await api<{ id: number; recent: Array<{ up: boolean }>; availability: { day: number | null } }>(
        `/uptime/${created.body.id}/`,
      );
      expect(detail.status).toBe(200);
      expect(detail.body.recent.some((r) => !r.up)).toBe(true);
      expect(detail.body.availability.day).toBeGreaterThan(0);
      expect((await api("/uptime/999999/")).status).toBe(404);
      const bad = await api<{ error: { code: string } }>("/uptime/", {
        method: "POST",
        body: JSON.stringify({ project: "jobs", name: "x", config: { url, intervalSeconds: 5 } }),
      });
      expect(bad.status).toBe(400);
    } finally {
      await new Promise((r) => target.close(r));
    }
  }, 240_000);

  test("Sentry's HTTP check-in endpoint (curl): 202 with no body; in_progress then ok pair up without an id; bad input is a catalogued 4xx", async () => {
    const d = new URL(dsn);
    const base = `${server.url}/api${d.pathname}/cron/curl-job/${d.username}/`;
    const upsert = await fetch(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        status: "in_progress",
        monitor_config: { schedule: { type: "crontab", value: "0 * * * *" }, max_runtime: 30 },
      }),
    });
    expect(upsert.status).toBe(202);
    expect(await upsert.text()).toBe("");
    await eventually(async () => (await checkIns("curl-job"))[0]?.status === "in_progress", 60_000, "curl-job in progress");
    // What a shell job sends when it is done: no id, the open check-in is closed (not a second one).
    expect((await fetch(`${base}?status=ok`)).status).toBe(202);
    await eventually(async () => (await checkIns("curl-job"))[0]?.status === "ok", 60_000, "curl-job ok");
    expect(await checkIns("curl-job")).toHaveLength(1);
    // No open check-in in that environment: an error is a check-in of its own.
    expect((await fetch(`${base}?status=error&environment=staging`)).status).toBe(202);
    await eventually(
      async () => (await checkIns("curl-job")).some((c) => c.environment === "staging" && c.status === "error"),
      60_000,
      "curl-job error in staging",
    );
    expect(await checkIns("curl-job")).toHaveLength(2);

    const bad = await fetch(`${base}?status=finished`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "invalid_check_in" });
    const badJson = await fetch(base, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(badJson.status).toBe(400);
    const wrongKey = await fetch(`${server.url}/api${d.pathname}/cron/curl-job/${"f".repeat(32)}/?status=ok`);
    expect(wrongKey.status).toBe(403);
    expect(await wrongKey.json()).toMatchObject({ code: "invalid_dsn" });
    expect((await fetch(base, { method: "PUT" })).status).toBe(405);
  }, 120_000);
});
