/**
 * Shared plumbing of the ingest tests: the real ingest handler on a node:http server of its own,
 * a raw HTTP client that shows exactly what came back, and a project with keys to send to.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Config, loadConfig } from "../../src/config";
import { createIngestHandler, type IngestHandler, type IngestHandlerDeps } from "../../src/ingest/ingest-handler";
import { createLogger } from "../../src/log";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { listOutcomes } from "../../src/storage/events/outcomes";
import { insertKey, insertProject } from "../../src/storage/orgs/projects";
import { tempDir } from "../helpers/test-db";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  method?: string;
  /** Transfer-Encoding: chunked, written in pieces */
  chunked?: boolean;
}

export function request(base: string, urlPath: string, body?: Buffer | string, opts: RequestOptions = {}): Promise<Reply> {
  const data = body === undefined ? undefined : typeof body === "string" ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (data && !opts.chunked) headers["content-length"] = String(data.length);
    const req = http.request(`${base}${urlPath}`, { method: opts.method ?? (data ? "POST" : "GET"), headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: Record<string, unknown> = {};
        try {
          json = text ? JSON.parse(text) : {};
        } catch {
          json = {};
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (data && opts.chunked) {
      const step = Math.max(1, Math.ceil(data.length / 4));
      for (let i = 0; i < data.length; i += step) req.write(data.subarray(i, i + step));
      req.end();
    } else req.end(data);
  });
}

export interface HandlerServer {
  handler: IngestHandler;
  server: http.Server;
  base: string;
  config: Config;
  close(): Promise<void>;
}

/** The ingest handler with `env` settings (loadConfig names) on a loopback port. */
export async function startHandler(
  db: Db,
  env: Record<string, string> = {},
  extra: Partial<IngestHandlerDeps> = {},
): Promise<HandlerServer> {
  const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "http://errata.test", ...env });
  const handler = createIngestHandler({ config, db, log: createLogger("silent"), ...extra });
  const server = http.createServer((req, res) => {
    if (!handler.handle(req, res)) {
      res.statusCode = 404;
      res.end("not ingest");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    handler,
    server,
    base: `http://127.0.0.1:${port}`,
    config,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await handler.close();
    },
  };
}

export interface SeededProject {
  orgId: number;
  projectId: number;
  keyId: number;
  key: string;
  /** a second active key of the same project */
  key2: string;
  key2Id: number;
  disabledKey: string;
}

let seq = 0;

/** A project with two active keys and a disabled one (keys are random 32-hex). */
export async function seedProject(db: Db, slug = "web"): Promise<SeededProject> {
  seq += 1;
  const rnd = () => Array.from({ length: 32 }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");
  const key = rnd();
  const key2 = rnd();
  const disabledKey = rnd();
  return writeTx(db, async (tx) => {
    const org = await tx
      .insertInto("organizations")
      .values({ slug: `org-${slug}-${seq}-${process.pid}`, name: "Org", created_at: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const orgId = Number(org.id);
    const p = await insertProject(tx, { orgId, slug, name: slug, platform: "javascript", now: 1 });
    const k = await insertKey(tx, { projectId: p.id, publicKey: key, label: "Default", now: 1 });
    const k2 = await insertKey(tx, { projectId: p.id, publicKey: key2, label: "Second", now: 1 });
    const d = await insertKey(tx, { projectId: p.id, publicKey: disabledKey, label: "Old", now: 1 });
    await tx.updateTable("project_keys").set({ active: 0 }).where("id", "=", d.id).execute();
    return { orgId, projectId: p.id, keyId: k.id, key, key2, key2Id: k2.id, disabledKey };
  });
}

/** Outcome counts of a project as "category outcome reason" → quantity. */
export async function outcomeCounts(db: Db, projectId: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of await listOutcomes(db, { projectIds: [projectId], from: 0, to: Number.MAX_SAFE_INTEGER })) {
    const k = `${r.category} ${r.outcome}${r.reason ? ` ${r.reason}` : ""}`;
    out[k] = (out[k] ?? 0) + r.quantity;
  }
  return out;
}

/** A minimal event envelope (header carries the id), like the SDKs send. */
export function eventEnvelope(eventId: string, event: Record<string, unknown> = { message: "hi" }, extra = ""): string {
  return `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify({ event_id: eventId, ...event })}${extra}`;
}

/** Polls until `fn` returns a truthy value (condition-based, not timing-based). */
export async function until<T>(fn: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
