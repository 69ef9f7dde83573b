/**
 * Alerts tests: the lifecycle world (services over a fresh database with a clock) plus events with
 * environments, tags and stack frames, and readers for the outbox.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { NotificationRow } from "../../src/storage/notifications";
import { enqueueMany } from "../../src/storage/queue";
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
}

export interface AlertWorld extends World {
  sendEvents(...events: AlertEvent[]): Promise<void>;
  outbox(): Promise<NotificationRow[]>;
}

let seq = 0;

export async function createAlertWorld(dialect: "sqlite" | "postgres"): Promise<AlertWorld> {
  const w = await createWorld(dialect);
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
                      filename: "src/handler.ts",
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
    }));
  };
  return Object.assign(w, { sendEvents, outbox });
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
