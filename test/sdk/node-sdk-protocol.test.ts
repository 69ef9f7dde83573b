/**
 * The official @sentry/node SDK (child process) against the real ingest handler:
 *  - rate limits: after a 429 with X-Sentry-Rate-Limits the SDK sends no event for the window
 *    (counted at the server, through a recording proxy in front of ingest), and its next client
 *    report tells us what it dropped, which lands in the outcome counters;
 *  - tunnels: with `tunnel:` the SDK posts to a forwarder that relays the raw envelope without
 *    any query auth; the envelope-header `dsn` is the only authentication.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseEnvelope } from "../../src/ingest/parse-envelope";
import type { Db } from "../../src/storage/db";
import { queueStore } from "../../src/storage/queue/queue";
import { openTestDb } from "../helpers/test-db";
import { type HandlerServer, outcomeCounts, type SeededProject, seedProject, startHandler } from "../ingest/helpers";
import { drain } from "../pipeline/helpers";

const LIMITS = { maxHeaderLine: 8192, maxEventSize: 1 << 20, maxAttachmentSize: 1 << 20 };

interface Seen {
  url: string;
  status: number;
  types: string[];
  headers: Record<string, unknown>;
  body: Buffer;
}

/**
 * A proxy in front of the ingest handler that records every request (path, item types, status).
 * `rewrite` lets it act as a tunnel: it decides the upstream path from the body.
 */
async function recordingProxy(
  upstream: string,
  rewrite?: (body: Buffer) => string,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const decoded = req.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(body) : body;
      let types: string[] = [];
      let headers: Record<string, unknown> = {};
      try {
        const env = parseEnvelope(decoded, LIMITS);
        types = env.items.map((i) => i.headers.type);
        headers = env.headers;
      } catch {
        types = ["<unparsable>"];
      }
      const target = rewrite ? rewrite(decoded) : (req.url ?? "/");
      const fwdHeaders: Record<string, string> = { "content-type": "application/x-sentry-envelope" };
      const up = http.request(`${upstream}${target}`, { method: "POST", headers: fwdHeaders }, (ur) => {
        const out: Buffer[] = [];
        ur.on("data", (c: Buffer) => out.push(c));
        ur.on("end", () => {
          seen.push({ url: req.url ?? "", status: ur.statusCode ?? 0, types, headers, body: decoded });
          const h: Record<string, string> = {};
          for (const k of ["retry-after", "x-sentry-rate-limits", "content-type"]) if (ur.headers[k]) h[k] = String(ur.headers[k]);
          res.writeHead(ur.statusCode ?? 502, h);
          res.end(Buffer.concat(out));
        });
      });
      up.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      up.end(decoded);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function runSdk(name: string, source: string, env: Record<string, string>): Promise<void> {
  const dir = path.join(process.cwd(), ".tmp", `sdk-${name}-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "run.mjs");
  fs.writeFileSync(file, source);
  try {
    await promisify(execFile)(process.execPath, [file], { env: { ...process.env, ...env }, timeout: 45_000 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("@sentry/node against Errata's ingest (SQLite)", () => {
  let db: Db;
  let close: () => Promise<void>;
  let p: SeededProject;
  beforeAll(async () => {
    ({ db, close } = await openTestDb("sqlite"));
  });
  afterAll(async () => close());

  test("backs off after a 429: no event is sent during the window; its client report is counted", async () => {
    p = await seedProject(db, "backoff");
    const s: HandlerServer = await startHandler(db, {
      RATE_LIMIT_KEY_EVENTS: "1",
      RATE_LIMIT_WINDOW_SECONDS: "3600",
      OUTCOME_FLUSH_MS: "50",
    });
    const proxy = await recordingProxy(s.base);
    try {
      const dsn = `http://${p.key}@${proxy.url.slice("http://".length)}/${p.projectId}`;
      await runSdk(
        "backoff",
        [
          'import * as Sentry from "@sentry/node";',
          'Sentry.init({ dsn: process.env.DSN, release: "backoff@1.0.0", environment: "test" });',
          'Sentry.captureException(new Error("accepted"));',
          "await Sentry.flush(10000);",
          'Sentry.captureException(new Error("refused with 429"));',
          "await Sentry.flush(10000);",
          'for (let i = 0; i < 5; i++) Sentry.captureException(new Error("suppressed " + i));',
          'Sentry.captureMessage("suppressed message");',
          "await Sentry.flush(10000);",
          "await Sentry.close(10000);",
        ].join("\n"),
        { DSN: dsn },
      );
      const withEvents = proxy.seen.filter((r) => r.types.includes("event"));
      // Exactly two event requests reached the server: the accepted one and the refused one.
      expect(withEvents.map((r) => r.status)).toEqual([200, 429]);
      const refusedAt = proxy.seen.indexOf(withEvents[1] as Seen);
      expect(proxy.seen.slice(refusedAt + 1).filter((r) => r.types.includes("event"))).toEqual([]);
      // What the SDK says it dropped: six events (it maps every event to `error`) for ratelimit_backoff.
      const reports = proxy.seen.filter((r) => r.types.includes("client_report"));
      expect(reports.length).toBeGreaterThan(0);
      expect(reports.every((r) => r.status === 200)).toBe(true);
      const discarded = reports.flatMap((r) => {
        const env = parseEnvelope(r.body, LIMITS);
        const item = env.items.find((i) => i.headers.type === "client_report");
        return (
          JSON.parse(Buffer.from(item?.payload ?? []).toString()) as {
            discarded_events: Array<{ reason: string; category: string; quantity: number }>;
          }
        ).discarded_events;
      });
      expect(discarded).toContainEqual({ reason: "ratelimit_backoff", category: "error", quantity: 6 });

      await s.handler.close();
      await drain(db, Date.now());
      const counts = await outcomeCounts(db, p.projectId);
      expect(counts).toMatchObject({ "error accepted": 1, "error rate_limited key_quota": 1, "error client_discard ratelimit_backoff": 6 });
    } finally {
      await proxy.close();
      await s.close().catch(() => {});
    }
  });

  test("tunnel: the SDK posts to a forwarder that relays the envelope without auth; the header dsn authenticates it", async () => {
    p = await seedProject(db, "tunnel");
    const s = await startHandler(db);
    // The forwarder only looks at the envelope header's dsn to find the project (like the official helper).
    const tunnel = await recordingProxy(s.base, (body) => {
      const header = JSON.parse(body.subarray(0, body.indexOf(0x0a)).toString()) as { dsn: string };
      return `/api/${new URL(header.dsn).pathname.split("/").pop()}/envelope/`;
    });
    try {
      await runSdk(
        "tunnel",
        [
          'import * as Sentry from "@sentry/node";',
          'Sentry.init({ dsn: process.env.DSN, tunnel: process.env.TUNNEL, release: "tunnel@1.0.0" });',
          'Sentry.captureException(new Error("through the tunnel"));',
          "await Sentry.flush(10000);",
          "await Sentry.close(10000);",
        ].join("\n"),
        { DSN: `http://${p.key}@sentry.invalid/${p.projectId}`, TUNNEL: `${tunnel.url}/monitoring` },
      );
      const events = tunnel.seen.filter((r) => r.types.includes("event"));
      expect(events).toHaveLength(1);
      expect(events[0]?.url).toBe("/monitoring");
      expect(events[0]?.status).toBe(200);
      expect(events[0]?.headers.dsn).toBe(`http://${p.key}@sentry.invalid/${p.projectId}`);
      const rows = await queueStore(db)
        .kysely.selectFrom("queue")
        .innerJoin("queue_bodies as b", "b.id", "queue.id")
        .select(["b.body", "key_id"])
        .where("project_id", "=", p.projectId)
        .execute();
      const queued = rows.map((r) => Buffer.from(r.body).toString()).find((b) => b.includes("through the tunnel"));
      expect(queued).toBeDefined();
      expect(rows.every((r) => Number(r.key_id) === p.keyId)).toBe(true);
    } finally {
      await tunnel.close();
      await s.close();
    }
  });
});
