/**
 * Alerts that understand Next.js, through the real digest and real delivery on both databases:
 * the browser's #441 mirror of a server error alerts as that server error (culprit, digest, the
 * digest page), a deploy-skew burst after a release is one "deploy skew" message with the advice,
 * and a minified React error alerts with its decoded message. Delivered to a real webhook receiver
 * as the generic webhook, Slack and Teams see it; rule filters and throttles still apply.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { nextjsTestPair } from "../../src/cli/nextjs-test-pair";
import { loadConfig } from "../../src/config";
import type { AlertMessage, IssueAlert } from "../../src/core/alerts/message";
import { DEFAULT_NEXTJS_HOLD } from "../../src/core/alerts/nextjs-alert";
import { deliverDue } from "../../src/pipeline/alerts/delivery-loop";
import type { SendDeps } from "../../src/pipeline/alerts/send-notification";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects } from "../helpers/test-db";
import { MINUTE } from "../lifecycle/helpers";
import { drain, hexId, silentLog } from "../pipeline/helpers";
import { type AlertWorld, createAlertWorld, type Received, startReceiver } from "./helpers";

const NEXT_SDK = { name: "sentry.javascript.nextjs", version: "11.0.0" };
let seq = 0;

/** The server half: what `onRequestError` → captureRequestError sends, with the README's digest tag. */
function serverError(digest: string, message: string): Record<string, unknown> {
  return {
    platform: "node",
    sdk: NEXT_SDK,
    tags: { digest },
    contexts: { runtime: { name: "node", version: "v22.0.0" }, nextjs: { router_kind: "App Router", route_path: "/boom" } },
    exception: {
      values: [
        {
          type: "Error",
          value: message,
          stacktrace: {
            frames: [
              { function: "renderToStream", filename: "node_modules/next/dist/server/render.js", lineno: 10, in_app: false },
              // grouping follows the frames: one function per message keeps one issue per message
              { function: `load_${message.replace(/\W/g, "_")}`, filename: "app/boom/page.tsx", lineno: 5, in_app: true },
            ],
          },
        },
      ],
    },
  };
}

/** The browser half: error.tsx's captureException of Next's redacted stand-in (React #441 in production). */
function browserMirror(digest: string): Record<string, unknown> {
  return {
    platform: "javascript",
    sdk: NEXT_SDK,
    tags: { digest },
    exception: {
      values: [
        {
          type: "Error",
          value:
            "Minified React error #441; visit https://react.dev/errors/441 for the full message or use the non-minified dev environment for full errors and additional helpful warnings.",
          stacktrace: { frames: [{ function: "ErrorBoundary", filename: "app:///_next/static/chunks/app.js", lineno: 1, in_app: true }] },
        },
      ],
    },
  };
}

function chunkError(release: string, chunk: number, user: string): Record<string, unknown> {
  return {
    platform: "javascript",
    sdk: NEXT_SDK,
    release,
    user: { id: user },
    exception: {
      values: [
        {
          type: "ChunkLoadError",
          value: `Loading chunk ${chunk} failed.\n(error: https://shop.example/_next/static/chunks/${chunk}.js)`,
          stacktrace: {
            frames: [{ function: "requireEnsure", filename: `app:///_next/static/chunks/${chunk}.js`, lineno: 1, in_app: true }],
          },
        },
      ],
    },
  };
}

const HYDRATION =
  "Minified React error #418; visit https://react.dev/errors/418?args[]=text&args[]= for the full message or use the non-minified dev environment for full errors and additional helpful warnings.";

describe.each(await dialects())("Next.js alerts on %s", (dialect) => {
  let w: AlertWorld;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let deps: SendDeps;
  let channels: number[];
  const json = (r: Received | undefined) => JSON.parse(r?.body ?? "null");

  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    rx = await startReceiver();
    const config = loadConfig({ ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ALERTS_TIMEOUT_MS: "5000" });
    deps = { db: w.db, alerts: config.alerts, smtp: null, publicUrl: "https://errata.example", now: () => w.clock.now };
    const channel = async (kind: string, url: string) =>
      (await w.services.alerts.createChannel(w.admin, "acme", "web", { kind, name: kind, config: { url } })).id;
    channels = [
      await channel("webhook", `${rx.url}/generic`),
      await channel("slack", `${rx.url}/slack`),
      await channel("teams", `${rx.url}/teams`),
    ];
    // The project's default rule (email) is switched off so each test counts its own rule only.
    const def = (await w.services.alerts.overview(w.owner, "acme", "web")).rules[0];
    await w.services.alerts.updateRule(w.admin, "acme", "web", def?.id ?? 0, {
      name: "default",
      enabled: false,
      triggers: { newIssue: true },
    });
  });
  afterAll(async () => {
    await rx?.close();
    await w?.close();
  });

  const send = async (...events: Array<Record<string, unknown>>) => {
    await enqueueMany(
      w.db,
      events.map((e) => {
        seq += 1;
        const body = {
          event_id: hexId(`next:${seq}:${Math.random()}`),
          level: "error",
          timestamp: w.clock.now / 1000,
          environment: "production",
          ...e,
        };
        return {
          projectId: w.projectId,
          keyId: 1,
          receivedAt: w.clock.now,
          clientIp: null,
          kind: "store" as const,
          body: Buffer.from(JSON.stringify(body)),
        };
      }),
    );
    const r = await drain(w.db, w.clock.now);
    if (r.failed > 0) throw new Error(`digest failed for ${r.failed} events`);
  };
  const rule = async (input: Record<string, unknown>) =>
    (await w.services.alerts.createRule(w.admin, "acme", "web", { name: "next", channelIds: channels, throttleMinutes: 0, ...input })).id;
  const off = (id: number) =>
    w.services.alerts.updateRule(w.admin, "acme", "web", id, { name: "next", enabled: false, triggers: { newIssue: true } });
  /** This rule's messages, one per alert (the generic webhook's copy). */
  const messages = async (ruleId: number): Promise<IssueAlert[]> =>
    (await w.outbox())
      .filter((n) => n.ruleId === ruleId && n.channelId === channels[0])
      .map((n) => JSON.parse(n.payload) as AlertMessage)
      .filter((m): m is IssueAlert => m.kind === "alert");
  const deliver = async () => {
    while ((await deliverDue(w.db, deps, silentLog)) > 0) {}
  };
  const received = (path: string, needle: string) => rx.received.filter((r) => r.path === path && r.body.includes(needle));

  /** Outbox rows of the rule (generic webhook copy) with their status and due time. */
  const rows = async (ruleId: number) =>
    (await w.outbox())
      .filter((n) => n.ruleId === ruleId && n.channelId === channels[0])
      .map((n) => ({ status: n.status, due: n.nextAttemptAt, message: JSON.parse(n.payload) as IssueAlert }));

  test("a server render error and its browser mirror: ONE message, the server error's, naming both; sent as soon as the mirror is in", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    await send(serverError("907901174", "Invoice service refused the request"));
    // The server error's message waits for the browser's side (ALERTS_NEXTJS_PAIR_MS).
    const [waiting] = await rows(id);
    expect(waiting?.due).toBe(w.clock.now + DEFAULT_NEXTJS_HOLD.pairMs);
    await deliver();
    expect(received("/generic", "907901174")).toEqual([]);

    w.clock.now += 2000;
    await send(browserMirror("907901174"));
    const all = await rows(id);
    expect(all).toHaveLength(1);
    const [{ message, due } = { message: undefined, due: 0 }] = all;
    expect(due).toBe(w.clock.now);
    expect(message?.issue.title).toBe("Error: Invoice service refused the request");
    expect(message?.issue.culprit).not.toBe("");
    const mirrorIssue = await w.services.digests.lookup(w.owner, "acme", "907901174");
    const browserSide = mirrorIssue.events.find((e) => e.side === "client");
    expect(message?.nextjs?.digest).toMatchObject({
      value: "907901174",
      side: "server",
      path: "/acme/digest/907901174",
      browser: { issueId: browserSide?.issueId, title: expect.stringContaining("Server Components render") },
    });
    expect(message?.path).toBe("/acme/digest/907901174");

    await deliver();
    const generic = received("/generic", "907901174");
    expect(generic).toHaveLength(1);
    expect(json(generic[0]).url).toBe("https://errata.example/acme/digest/907901174");
    const slack = received("/slack", "907901174");
    expect(slack).toHaveLength(1);
    expect(json(slack[0]).text).toBe("New issue in web: Error: Invoice service refused the request");
    expect(JSON.stringify(json(slack[0]).blocks)).toContain(
      `Seen in the browser as ${message?.nextjs?.digest?.browser?.shortId} (digest 907901174)`,
    );
    // …and which server line failed.
    expect(JSON.stringify(json(slack[0]).blocks)).toContain(`at ${message?.issue.culprit?.replace(")", ":5)")}`);
    const teams = received("/teams", "907901174");
    expect(teams).toHaveLength(1);
    const facts = json(teams[0]).attachments[0].content.body.find((b: { type: string }) => b.type === "FactSet").facts;
    expect(facts).toContainEqual({ title: "Digest", value: "907901174" });
    expect(facts).toContainEqual({ title: "Browser issue", value: message?.nextjs?.digest?.browser?.shortId });
    // No message shows React's minified text for the mirror.
    expect(received("/slack", "Minified React error")).toEqual([]);
    await off(id);
  });

  test("browser first, then the server: the mirror's waiting message gives way to the server error's, which names it", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    await send(browserMirror("123456789"));
    w.clock.now += 1000;
    await send(serverError("123456789", "Cart total overflowed"));
    const all = await rows(id);
    expect(all.map((r) => [r.status, r.message.nextjs?.digest?.side])).toEqual([
      ["paired", "client"],
      ["pending", "server"],
    ]);
    const server = all[1]?.message;
    expect(server?.nextjs?.digest?.browser).toMatchObject({ issueId: all[0]?.message.issue.id, shortId: all[0]?.message.issue.shortId });
    expect(server?.path).toBe("/acme/digest/123456789");
    expect(all[1]?.due).toBe(w.clock.now);
    await deliver();
    expect(received("/slack", "123456789")).toHaveLength(1);
    expect(received("/slack", "its server side is not in Errata yet")).toEqual([]);
    expect(received("/slack", `Seen in the browser as ${all[0]?.message.issue.shortId} (digest 123456789)`)).toHaveLength(1);
    await off(id);
  });

  test("no mirror within the hold: the server error's message leaves alone; a mirror after it adds no second message", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    await send(serverError("555000111", "Stock service timed out"));
    w.clock.now += DEFAULT_NEXTJS_HOLD.pairMs;
    await deliver();
    expect(received("/slack", "Stock service timed out")).toHaveLength(1);
    w.clock.now += 5000;
    await send(browserMirror("555000111"));
    await deliver();
    expect(received("/slack", "555000111")).toHaveLength(1);
    expect((await rows(id)).map((r) => r.status)).toEqual(["sent"]);
    await off(id);
  });

  test("a deploy-skew burst after a release: one message per rule, sent after the hold with the burst's count, the minutes and the advice", async () => {
    const newIssue = await rule({ triggers: { newIssue: true } });
    // "More than 2 events in 10 minutes": fires on the third.
    const burst = await rule({ triggers: { frequency: { events: 2, users: 0, minutes: 10 } } });
    // Only skew: the classification tag is a filter like any other.
    const skewOnly = await rule({
      triggers: { newIssue: true },
      filters: { tags: [{ key: "errata.class", op: "equals", value: "deploy-skew" }] },
    });
    await send(chunkError("shop@3.0.0", 101, "u1"));
    // Stale tabs hit the deploy within the first minute and a half.
    for (const [i, user] of ["u2", "u3", "u4"].entries()) {
      w.clock.now += 25_000;
      await send(chunkError("shop@3.0.0", 200 + i, user));
    }
    await send({ message: "an ordinary error", platform: "javascript", sdk: NEXT_SDK });

    const first = await messages(newIssue);
    expect(first.filter((m) => m.nextjs?.skew)).toHaveLength(1);
    expect(await messages(burst)).toHaveLength(1);
    expect((await messages(skewOnly)).map((m) => Boolean(m.nextjs?.skew))).toEqual([true]);

    w.clock.now += DEFAULT_NEXTJS_HOLD.burstMs;
    await deliver();
    const slack = rx.received.filter((r) => r.path === "/slack" && r.body.includes("Deploy skew after release shop@3.0.0"));
    // Each rule's message tells the whole burst: 4 users in 2 minutes (75 s), not its first event.
    expect(slack.map((r) => json(r).text)).toEqual(
      Array(3).fill("Deploy skew after release shop@3.0.0 in web: 4 users hit stale chunks in 2 minutes"),
    );
    expect(slack.every((r) => r.body.includes("deploymentId") && r.body.includes("skew protection"))).toBe(true);
    // The outbox keeps what was sent.
    expect((await messages(newIssue)).find((m) => m.nextjs?.skew)?.nextjs?.skew).toEqual({
      release: "shop@3.0.0",
      users: 4,
      events: 4,
      minutes: 2,
    });
    for (const id of [newIssue, burst, skewOnly]) await off(id);
  });

  test("a minified React error alerts with its decoded message, never the minified text; the throttle still holds", async () => {
    // "More than 1 event in 5 minutes" fires on the second, which the throttle holds back.
    const id = await rule({ triggers: { newIssue: true, frequency: { events: 1, users: 0, minutes: 5 } }, throttleMinutes: 60 });
    await send({
      platform: "javascript",
      sdk: NEXT_SDK,
      exception: {
        values: [
          {
            type: "Error",
            value: HYDRATION,
            stacktrace: { frames: [{ function: "hydrateRoot", filename: "app:///x.js", lineno: 1, in_app: true }] },
          },
        ],
      },
    });
    w.clock.now += MINUTE;
    await send({ platform: "javascript", sdk: NEXT_SDK, exception: { values: [{ type: "Error", value: HYDRATION }] } });
    const ms = await messages(id);
    expect(ms).toHaveLength(1);
    expect(ms[0]?.nextjs?.react).toMatchObject({ code: 418 });
    await deliver();
    const slack = rx.received.filter((r) => r.path === "/slack" && r.body.includes("#418"));
    expect(slack).toHaveLength(1);
    expect(json(slack[0]).text).toMatch(/^New issue in web: #418 Hydration failed because/);
    expect(slack[0]?.body).not.toContain("Minified React error");
    await off(id);
  });

  test("send-test-event --nextjs's pair: linked by one digest (server first), and its browser half alerts as the server error", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    const pair = nextjsTestPair("Test server error from the CLI", w.clock.now);
    expect(pair.digest).toMatch(/^\d{9,10}$/);
    await send(pair.server);
    w.clock.now += 1000;
    await send(pair.browser);
    const found = await w.services.digests.lookup(w.owner, "acme", pair.digest);
    expect(found.events.map((e) => e.side)).toEqual(["server", "client"]);
    expect(found.events[0]?.issueTitle).toBe("Error: Test server error from the CLI");
    // One message: the server error's, naming its browser half.
    const all = await messages(id);
    expect(all).toHaveLength(1);
    expect(all[0]?.issue.title).toBe("Error: Test server error from the CLI");
    expect(all[0]?.nextjs?.digest?.browser?.title).toContain("Server Components render");
    // Two runs: two digests, never mixed.
    const again = nextjsTestPair("Test server error from the CLI", w.clock.now);
    expect(again.digest).not.toBe(pair.digest);
    await off(id);
  });
});
