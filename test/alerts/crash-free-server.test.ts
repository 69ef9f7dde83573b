/**
 * The crash-free trigger on the real server (built dist/cli.mjs, SQLite): `errata alert create
 * --trigger crash-free` provisions the rule, sessions arrive over HTTP exactly as @sentry/node
 * sends them (one envelope per session update), the worker's digest evaluates and its delivery loop
 * posts ONE message per crashing release to a webhook receiver started here.
 */
import { afterAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-db";
import { envelopeOf, startReceiver } from "./helpers";

const ENV = { ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ALERTS_POLL_MS: "100", LOG_LEVEL: "error" };
const SDK = { name: "sentry.javascript.node", version: "11.12.0" };

/** One session's two envelopes (init, then its end), in @sentry/node's shape. */
function sessionEnvelopes(release: string, end: "exited" | "crashed"): string[] {
  const sid = crypto.randomUUID().replace(/-/g, "");
  const started = new Date(Date.now() - 30_000).toISOString();
  const now = new Date().toISOString();
  const base = { sid, started, attrs: { release, environment: "production" } };
  return [
    envelopeOf({ sent_at: started, sdk: SDK }, [{ type: "session" }, { ...base, init: true, timestamp: started, status: "ok", errors: 0 }]),
    envelopeOf({ sent_at: now, sdk: SDK }, [
      { type: "session" },
      { ...base, init: false, timestamp: now, status: end, errors: end === "crashed" ? 1 : 0, duration: 30 },
    ]),
  ].map((b) => b.toString("utf8"));
}

describe("crash-free alerts on the real server (SQLite)", () => {
  let info: TestDatabase | undefined;
  let server: TestServer | undefined;
  let rx: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await info?.drop();
  });

  test("CLI rule → sessions over HTTP → one webhook per crashing release, none for more crashes or a healthy release", async () => {
    rx = await startReceiver();
    const hook = rx;
    info = await createTestDatabase("sqlite");
    server = await startServer({ db: info, env: ENV });
    const s = server;
    await s.cli("user", "create", "--email", "ops@example.com", "--password", "durable-password-1", "--org", "ops");
    const dsn = (await s.cli("project", "create", "--org", "ops", "--name", "Api")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    const ingest = `${s.url}/api/${projectId}/envelope/?sentry_key=${key}`;
    const send = async (...bodies: string[]) => {
      for (const body of bodies) expect((await fetch(ingest, { method: "POST", body })).status).toBe(200);
    };
    const sessions = (n: number, release: string, end: "exited" | "crashed") =>
      Array.from({ length: n }, () => sessionEnvelopes(release, end)).flat();

    const ruleId = await s.cli(
      "alert",
      "create",
      "--org",
      "ops",
      "--project",
      "api",
      "--trigger",
      "crash-free",
      "--below",
      "90",
      "--min-sessions",
      "5",
      "--environment",
      "production",
      "--webhook",
      `${hook.url}/crash-free`,
      "--name",
      "Crashing releases",
    );
    expect(ruleId).toMatch(/^\d+$/);
    expect(await s.cli("alert", "list", "--org", "ops", "--project", "api")).toContain(
      `${ruleId}\ton\tcrash-free(<90%/5 sessions)\twebhook\t\tCrashing releases`,
    );
    // the CLI validates like the UI and the API
    await expect(
      s.cli("alert", "create", "--org", "ops", "--project", "api", "--trigger", "crash-free", "--below", "0", "--email", "a@example.com"),
    ).rejects.toThrow(/belowPercent/);

    const ofRelease = (v: string) =>
      hook.received.filter((r) => r.path === "/crash-free" && JSON.parse(r.body).message.release?.version === v);
    await send(...sessions(2, "api@1.0.0", "exited"), ...sessions(4, "api@1.0.0", "crashed"));
    const first = await eventually(async () => ofRelease("api@1.0.0")[0], 30_000, "the crash-free webhook");
    const m = JSON.parse(first.body);
    expect(m).toMatchObject({
      version: 1,
      message: {
        kind: "release",
        trigger: "crash_free",
        release: { version: "api@1.0.0", environments: ["production"] },
        threshold: { belowPercent: 90, minSessions: 5 },
        path: "/ops/releases/api%401.0.0",
      },
    });
    // the worker digests as envelopes arrive: the message tells the figures when the rate crossed
    expect(m.message.release.sessions).toBeGreaterThanOrEqual(5);
    expect(m.message.release.crashFreeSessions).toBeLessThan(0.9);
    expect(m.message.release.crashFreeSessions).toBeCloseTo(1 - m.message.release.crashed / m.message.release.sessions, 10);

    // more crashes of the same release, and a healthy release; then a second crashing release as
    // a barrier: once its message is in, everything sent before it has been digested
    await send(...sessions(3, "api@1.0.0", "crashed"), ...sessions(10, "api@1.1.0", "exited"));
    await send(...sessions(5, "api@2.0.0", "crashed"));
    await eventually(async () => ofRelease("api@2.0.0")[0], 30_000, "the second release's webhook");
    expect(ofRelease("api@1.0.0")).toHaveLength(1);
    expect(ofRelease("api@1.1.0")).toHaveLength(0);
    expect(hook.received.filter((r) => r.path === "/crash-free")).toHaveLength(2);
  }, 180_000);
});
