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

  test("the browser's #441 mirror alerts as the server error it mirrors: title, culprit, digest, the digest page; every channel shows it", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    await send(serverError("907901174", "Invoice service refused the request"));
    w.clock.now += 2000;
    await send(browserMirror("907901174"));
    const [server, mirror] = await messages(id);
    expect(server?.issue.title).toBe("Error: Invoice service refused the request");
    expect(server?.nextjs?.digest).toMatchObject({ value: "907901174", side: "server" });
    expect(server?.nextjs?.digest?.browser).toBeUndefined();

    const serverIssue = server?.issue.id ?? 0;
    expect(mirror?.nextjs?.digest).toMatchObject({
      value: "907901174",
      side: "client",
      path: "/acme/digest/907901174",
      server: { issueId: serverIssue, shortId: server?.issue.shortId, title: "Error: Invoice service refused the request" },
    });
    expect(mirror?.nextjs?.digest?.server?.culprit).toBe(server?.issue.culprit);
    expect(server?.issue.culprit).not.toBe("");
    expect(mirror?.path).toBe("/acme/digest/907901174");

    await deliver();
    const generic = json(received("/generic", '"side":"client"')[0]);
    expect(generic.url).toBe("https://errata.example/acme/digest/907901174");
    const slack = json(received("/slack", "reached the browser")[0]);
    expect(slack.text).toContain("server error reached the browser (digest 907901174): Error: Invoice service refused the request");
    expect(JSON.stringify(slack.blocks)).toContain(`Culprit: ${server?.issue.culprit}`);
    expect(slack.blocks.at(-1).elements[0].url).toBe("https://errata.example/acme/digest/907901174");
    const teams = json(received("/teams", "reached the browser")[0]);
    const card = JSON.stringify(teams.attachments[0].content);
    expect(card).toContain(`Server error ${server?.issue.shortId}: Error: Invoice service refused the request`);
    expect(teams.attachments[0].content.body.find((b: { type: string }) => b.type === "FactSet").facts).toContainEqual({
      title: "Digest",
      value: "907901174",
    });
    // No message shows React's minified text for the mirror.
    expect(received("/slack", "Minified React error")).toEqual([]);
    await off(id);
  });

  test("browser first, then the server: the browser alert says the server side is missing, the server alert names the browser issue", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    await send(browserMirror("123456789"));
    w.clock.now += 1000;
    await send(serverError("123456789", "Cart total overflowed"));
    const [mirror, server] = await messages(id);
    expect(mirror?.nextjs?.digest).toMatchObject({ side: "client", value: "123456789" });
    expect(mirror?.nextjs?.digest?.server).toBeUndefined();
    expect(mirror?.path).toBe(`/acme/issues/${mirror?.issue.id}`);
    expect(server?.nextjs?.digest?.browser).toMatchObject({ issueId: mirror?.issue.id, shortId: mirror?.issue.shortId });
    expect(server?.path).toBe("/acme/digest/123456789");
    await deliver();
    expect(received("/slack", "its server side is not in Errata yet")).toHaveLength(1);
    expect(received("/slack", `Seen in the browser as ${mirror?.issue.shortId} (digest 123456789)`)).toHaveLength(1);
    await off(id);
  });

  test("a deploy-skew burst after a release: one message per rule naming the release, the count, the minutes and the advice", async () => {
    const newIssue = await rule({ triggers: { newIssue: true } });
    // "More than 2 events in 10 minutes": fires on the third.
    const burst = await rule({ triggers: { frequency: { events: 2, users: 0, minutes: 10 } } });
    // Only skew: the classification tag is a filter like any other.
    const skewOnly = await rule({
      triggers: { newIssue: true },
      filters: { tags: [{ key: "errata.class", op: "equals", value: "deploy-skew" }] },
    });
    await send(chunkError("shop@3.0.0", 101, "u1"));
    for (const [i, user] of ["u2", "u3", "u4"].entries()) {
      w.clock.now += MINUTE;
      await send(chunkError("shop@3.0.0", 200 + i, user));
    }
    await send({ message: "an ordinary error", platform: "javascript", sdk: NEXT_SDK });

    const first = await messages(newIssue);
    expect(first.filter((m) => m.nextjs?.skew)).toHaveLength(1);
    expect(first[0]?.nextjs?.skew).toMatchObject({ release: "shop@3.0.0", users: 1, events: 1 });

    const spikes = await messages(burst);
    expect(spikes).toHaveLength(1);
    expect(spikes[0]?.nextjs?.skew).toEqual({ release: "shop@3.0.0", users: 3, events: 3, minutes: 2 });

    const only = await messages(skewOnly);
    expect(only.map((m) => Boolean(m.nextjs?.skew))).toEqual([true]);

    await deliver();
    const slack = rx.received.filter((r) => r.path === "/slack" && r.body.includes("Deploy skew after release shop@3.0.0"));
    expect(slack.map((r) => json(r).text)).toContain("Deploy skew after release shop@3.0.0 in web: 3 users hit stale chunks in 2 minutes");
    expect(slack.every((r) => r.body.includes("deploymentId") && r.body.includes("skew protection"))).toBe(true);
    expect(slack).toHaveLength(3);
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
    const [, mirror] = await messages(id);
    expect(mirror?.nextjs?.digest?.server?.title).toBe("Error: Test server error from the CLI");
    // Two runs: two digests, never mixed.
    const again = nextjsTestPair("Test server error from the CLI", w.clock.now);
    expect(again.digest).not.toBe(pair.digest);
    await off(id);
  });
});
