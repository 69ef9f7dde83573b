/**
 * Alerts tests: the lifecycle world (services over a fresh database with a clock) plus events with
 * environments, tags and stack frames, and readers for the outbox.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { NotificationRow } from "../../src/storage/alerts/notifications";
import { enqueueMany } from "../../src/storage/queue/queue";
import { createWorld, type World } from "../lifecycle/helpers";
import { drain, hexId } from "../pipeline/helpers";

export interface AlertEvent {
  message: string;
  environment?: string;
  level?: string;
  tags?: Record<string, string>;
  user?: string;
  release?: string;
  inApp?: boolean;
  /** the in-app frame's file (default src/handler.ts) */
  filename?: string;
}

/** One session as an SDK reports it: its `init` update, then how it ended. */
export interface AlertSession {
  release: string;
  environment?: string;
  /** how the session ended: "exited" (healthy), "crashed", "abnormal"… (default exited) */
  end?: string;
  errors?: number;
  /** the user (`did`); none by default */
  user?: string;
}

/** Request-mode release health (browser SDKs on servers, `sessions` item): counts per minute. */
export interface AlertSessionAggregate {
  release: string;
  environment?: string;
  exited?: number;
  errored?: number;
  crashed?: number;
  abnormal?: number;
}

export interface AlertWorld extends World {
  sendEvents(...events: AlertEvent[]): Promise<void>;
  /** Each session as the Node SDK sends it: an envelope with its `init` update, one with its end. */
  sendSessions(...sessions: AlertSession[]): Promise<void>;
  /** `sessions` items (pre-aggregated), one envelope each. */
  sendSessionAggregates(...aggregates: AlertSessionAggregate[]): Promise<void>;
  /** Enqueues these exact envelope bodies again and drains (an SDK or a queue sending twice). */
  resend(bodies: Buffer[]): Promise<void>;
  /** the envelope bodies sent so far by sendSessions / sendSessionAggregates */
  sentEnvelopes: Buffer[];
  outbox(): Promise<NotificationRow[]>;
}

/** An envelope in the SDK's framing: header line, then item header + payload lines. */
export function envelopeOf(headers: Record<string, unknown>, ...items: Array<[Record<string, unknown>, unknown]>): Buffer {
  const lines = [JSON.stringify(headers)];
  for (const [h, p] of items) lines.push(JSON.stringify(h), JSON.stringify(p));
  return Buffer.from(`${lines.join("\n")}\n`);
}

const SDK = { name: "sentry.javascript.node", version: "11.12.0" };

let seq = 0;

export async function createAlertWorld(dialect: "sqlite" | "postgres", env: Record<string, string> = {}): Promise<AlertWorld> {
  const w = await createWorld(dialect, env);
  const sendEvents = async (...events: AlertEvent[]) => {
    await enqueueMany(
      w.db,
      events.map((e) => {
        seq += 1;
        const body = {
          event_id: hexId(`alerts:${seq}:${e.message}:${Math.random()}`),
          platform: "javascript",
          level: e.level ?? "error",
          timestamp: w.clock.now / 1000,
          environment: e.environment ?? "production",
          tags: e.tags ?? {},
          exception: {
            values: [
              {
                type: "AlertError",
                value: e.message,
                stacktrace: {
                  frames: [
                    { function: "lib", filename: "node_modules/lib/index.js", lineno: 10, in_app: false },
                    // grouping follows the frames: one function per message keeps one issue per message
                    {
                      function: `handle_${e.message.replace(/\W/g, "_")}`,
                      filename: e.filename ?? "src/handler.ts",
                      lineno: 42,
                      in_app: e.inApp ?? true,
                    },
                  ],
                },
              },
            ],
          },
          ...(e.release ? { release: e.release } : {}),
          ...(e.user ? { user: { id: e.user } } : {}),
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
  const sentEnvelopes: Buffer[] = [];
  const enqueueEnvelopes = async (bodies: Buffer[]) => {
    await enqueueMany(
      w.db,
      bodies.map((body) => ({
        projectId: w.projectId,
        keyId: 1,
        receivedAt: w.clock.now,
        clientIp: null,
        kind: "envelope" as const,
        body,
      })),
    );
    const r = await drain(w.db, w.clock.now);
    if (r.failed > 0) throw new Error(`digest failed for ${r.failed} items`);
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const sendSessions = async (...sessions: AlertSession[]) => {
    const started = w.clock.now - 60_000;
    const bodies: Buffer[] = [];
    const ends: Buffer[] = [];
    for (const s of sessions) {
      seq += 1;
      const sid = hexId(`session:${seq}:${Math.random()}`);
      const base = {
        sid,
        started: iso(started),
        attrs: { release: s.release, environment: s.environment ?? "production" },
        ...(s.user ? { did: s.user } : {}),
      };
      bodies.push(
        envelopeOf({ sent_at: iso(started), sdk: SDK }, [
          { type: "session" },
          { ...base, init: true, timestamp: iso(started), status: "ok", errors: 0 },
        ]),
      );
      const end = s.end ?? "exited";
      ends.push(
        envelopeOf({ sent_at: iso(w.clock.now), sdk: SDK }, [
          { type: "session" },
          {
            ...base,
            init: false,
            timestamp: iso(w.clock.now),
            status: end,
            errors: s.errors ?? (end === "crashed" ? 1 : 0),
            duration: 60,
          },
        ]),
      );
    }
    sentEnvelopes.push(...bodies, ...ends);
    await enqueueEnvelopes([...bodies, ...ends]);
  };
  const sendSessionAggregates = async (...aggregates: AlertSessionAggregate[]) => {
    const bodies = aggregates.map((a) => {
      const counts = Object.fromEntries((["exited", "errored", "crashed", "abnormal"] as const).flatMap((k) => (a[k] ? [[k, a[k]]] : [])));
      return envelopeOf({ sent_at: iso(w.clock.now), sdk: SDK }, [
        { type: "sessions" },
        {
          aggregates: [{ started: iso(w.clock.now - 60_000), ...counts }],
          attrs: { release: a.release, environment: a.environment ?? "production" },
        },
      ]);
    });
    sentEnvelopes.push(...bodies);
    await enqueueEnvelopes(bodies);
  };
  const outbox = async () => {
    const rows = await w.db.kysely.selectFrom("notifications").selectAll().orderBy("id").execute();
    return rows.map((r) => ({
      id: Number(r.id),
      projectId: Number(r.project_id),
      ruleId: r.rule_id === null ? null : Number(r.rule_id),
      channelId: Number(r.channel_id),
      issueId: r.issue_id === null ? null : Number(r.issue_id),
      kind: r.kind,
      trigger: r.trigger,
      payload: r.payload,
      status: r.status as NotificationRow["status"],
      attempts: Number(r.attempts),
      nextAttemptAt: Number(r.next_attempt_at),
      lastError: r.last_error,
      responseStatus: r.response_status === null ? null : Number(r.response_status),
      responseBody: r.response_body,
      deliveryId: r.delivery_id,
      createdAt: Number(r.created_at),
      sentAt: r.sent_at === null ? null : Number(r.sent_at),
      target: r.target ?? null,
    }));
  };
  return Object.assign(w, { sendEvents, sendSessions, sendSessionAggregates, resend: enqueueEnvelopes, sentEnvelopes, outbox });
}

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A node:http receiver on 127.0.0.1 that records every request; `answer` decides the reply. */
export async function startReceiver(
  answer: (r: Received, n: number) => { status: number; headers?: Record<string, string>; body?: string } = () => ({
    status: 200,
    body: "ok",
  }),
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      const a = answer(r, received.length);
      res.writeHead(a.status, { "content-type": "text/plain", ...(a.headers ?? {}) });
      res.end(a.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls until `check` returns a value (not undefined/false) or the timeout passes. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
