/**
 * The ingest fast path over real HTTP, on both databases: the recorded @sentry/node requests, the
 * whole event-sample corpus, every content encoding, every catalogue error, and the real
 * @sentry/node SDK (in a child process) as the client.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig, MiB } from "../../src/config.js";
import { parseTrustedProxies, type TrustedProxies } from "../../src/core/security/client-ip.js";
import { createIngestHandler, type IngestHandler } from "../../src/ingest/ingest-handler.js";
import { parseEnvelope } from "../../src/ingest/parse-envelope.js";
import { createLogger } from "../../src/log.js";
import type { Db } from "../../src/storage/db.js";
import { writeTx } from "../../src/storage/dialect.js";
import { insertKey, insertProject } from "../../src/storage/orgs/projects.js";
import { queueStore } from "../../src/storage/queue/queue";
import { queueDepth } from "../../src/storage/queue/queue.js";
import { EVENT_SAMPLES, eventEnvelope, eventSampleFiles, knownBroken, nodeEnvelopeCaptures, retarget } from "../helpers/ingest-fixtures.js";
import { dialects, openTestDb, tempDir } from "../helpers/test-db.js";

const KEY = "0123456789abcdef0123456789abcdef";
const OTHER_KEY = "fedcba9876543210fedcba9876543210";
const DISABLED_KEY = "00000000000000000000000000000d15";
const LIMITS = {
  MAX_COMPRESSED_BODY: String(1 * MiB),
  MAX_ENVELOPE_SIZE: String(1 * MiB),
  MAX_EVENT_SIZE: String(256 * 1024),
  INGEST_BODY_TIMEOUT_MS: "800",
};

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

interface PostOptions {
  headers?: Record<string, string>;
  /** Send without Content-Length (Transfer-Encoding: chunked), in pieces, like @sentry/node. */
  chunked?: boolean;
  method?: string;
}

function request(base: string, urlPath: string, body: Buffer | string | undefined, opts: PostOptions = {}): Promise<Reply> {
  const data = body === undefined ? undefined : typeof body === "string" ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (data && !opts.chunked) headers["content-length"] = String(data.length);
    const req = http.request(`${base}${urlPath}`, { method: opts.method ?? "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: Record<string, unknown> = {};
        try {
          json = text ? JSON.parse(text) : {};
        } catch {
          json = { unparsable: text };
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (data && opts.chunked) {
      // Several writes so the server really sees a streamed, chunk-encoded body.
      const step = Math.max(1, Math.ceil(data.length / 4));
      for (let i = 0; i < data.length; i += step) req.write(data.subarray(i, i + step));
      req.end();
    } else req.end(data);
  });
}

function expectCatalogueError(r: Reply, status: number, code: string): void {
  expect({ status: r.status, code: r.json.code }).toEqual({ status, code });
  expect(typeof r.json.detail).toBe("string");
  expect(r.headers["x-sentry-error"]).toBeTruthy();
  expect(r.headers["access-control-allow-origin"]).toBe("*");
  expect(r.headers["access-control-expose-headers"]).toContain("x-sentry-error");
}

async function lastQueued(db: Db): Promise<{ body: Buffer; kind: string; project_id: number; key_id: number; client_ip: string | null }> {
  const row = await queueStore(db)
    .kysely.selectFrom("queue")
    .innerJoin("queue_bodies as b", "b.id", "queue.id")
    .select(["b.body", "kind", "project_id", "key_id", "client_ip"])
    .orderBy("queue.id", "desc")
    .limit(1)
    .executeTakeFirstOrThrow();
  return { ...row, body: Buffer.from(row.body), project_id: Number(row.project_id), key_id: Number(row.key_id) };
}

function trustedProxyList(value: string): TrustedProxies {
  const parsed = parseTrustedProxies(value);
  if (!parsed.ok) throw new Error(parsed.bad);
  return parsed.proxies;
}

async function startServer(handler: IngestHandler): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer((req, res) => {
    if (!handler.handle(req, res)) {
      res.statusCode = 404;
      res.end("not ingest");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}` };
}

async function stopServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

describe.each(await dialects())("ingest over HTTP on %s", (dialect) => {
  let db: Db;
  let closeDb: () => Promise<void>;
  let handler: IngestHandler;
  let server: http.Server;
  let base: string;
  let projectId: number;
  let keyId: number;
  let otherProjectId: number;
  let envUrl: string;
  let storeUrl: string;

  beforeAll(async () => {
    ({ db, close: closeDb } = await openTestDb(dialect));
    const now = Date.now();
    ({ projectId, keyId, otherProjectId } = await writeTx(db, async (tx) => {
      const org = await tx
        .insertInto("organizations")
        .values({ slug: "acme", name: "Acme", created_at: now })
        .returning("id")
        .executeTakeFirstOrThrow();
      const orgId = Number(org.id);
      const p = await insertProject(tx, { orgId, slug: "web", name: "Web", platform: "javascript", now });
      const k = await insertKey(tx, { projectId: p.id, publicKey: KEY, label: "Default", now });
      const p2 = await insertProject(tx, { orgId, slug: "api", name: "API", platform: "node", now });
      await insertKey(tx, { projectId: p2.id, publicKey: OTHER_KEY, label: "Default", now });
      const d = await insertKey(tx, { projectId: p.id, publicKey: DISABLED_KEY, label: "Old", now });
      await tx.updateTable("project_keys").set({ active: 0 }).where("id", "=", d.id).execute();
      return { projectId: p.id, keyId: k.id, otherProjectId: p2.id };
    }));
    const config = loadConfig({ DATA_DIR: tempDir(), ...LIMITS });
    handler = createIngestHandler({ config, db, log: createLogger("silent") });
    ({ server, base } = await startServer(handler));
    envUrl = `/api/${projectId}/envelope/?sentry_version=7&sentry_key=${KEY}&sentry_client=test%2F1`;
    storeUrl = `/api/${projectId}/store/?sentry_version=7&sentry_key=${KEY}`;
  });

  afterAll(async () => {
    await stopServer(server);
    await handler.close();
    await closeDb();
  });

  test("every recorded @sentry/node request is accepted and queued with its event id", async () => {
    for (const c of nodeEnvelopeCaptures()) {
      const before = await queueDepth(db);
      const headers: Record<string, string> = { "user-agent": c.headers["user-agent"] };
      if (c.headers["content-encoding"]) headers["content-encoding"] = c.headers["content-encoding"];
      const r = await request(base, retarget(c.url, projectId, KEY), c.body, { headers, chunked: true });
      expect(r.status, `${c.name}: ${r.text}`).toBe(200);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["access-control-allow-origin"]).toBe("*");
      expect(await queueDepth(db)).toBe(before + 1);
      const env = parseEnvelope(c.decoded, { maxHeaderLine: 8192, maxEventSize: MiB, maxAttachmentSize: MiB });
      expect(r.json).toEqual(env.headers.event_id ? { id: env.headers.event_id } : {});
      const row = await lastQueued(db);
      expect(row).toMatchObject({ kind: "envelope", project_id: projectId, key_id: keyId, client_ip: "127.0.0.1" });
      // Stored decompressed and byte-identical (these envelopes already carry their event id).
      expect(row.body.equals(c.decoded)).toBe(true);
    }
  });

  test("every event sample is accepted as an envelope (KNOWN-BROKEN may get a catalogue 400)", async () => {
    const broken = knownBroken();
    const files = eventSampleFiles();
    expect(files.length).toBeGreaterThan(100);
    let accepted = 0;
    for (const [i, file] of files.entries()) {
      const payload = fs.readFileSync(path.join(EVENT_SAMPLES, file));
      const ev = JSON.parse(payload.toString("utf8")) as { event_id?: string };
      // Alternate header styles: with the id in the envelope header, and with an empty header.
      const header = i % 2 === 0 && ev.event_id ? { event_id: ev.event_id } : {};
      const r = await request(base, envUrl, eventEnvelope(payload, header), {
        headers: { "content-type": "application/x-sentry-envelope" },
      });
      expect(r.status, `${file}: ${r.text}`).toBeLessThan(500);
      if (r.status === 200) {
        accepted++;
        expect(r.json.id).toMatch(/^[0-9a-f]{32}$/);
        if (ev.event_id) expect(r.json.id).toBe(ev.event_id.replace(/-/g, "").toLowerCase());
        // The worker trusts the header: it must carry the id we answered.
        const row = await lastQueued(db);
        expect(parseEnvelope(row.body, { maxHeaderLine: 8192, maxEventSize: MiB, maxAttachmentSize: MiB }).headers.event_id).toBe(
          r.json.id,
        );
      } else {
        expect(broken.has(file), `${file} rejected: ${r.text}`).toBe(true);
        expect(r.status).toBe(400);
        expect(r.json.code).toMatch(/^invalid_/);
      }
    }
    expect(accepted).toBeGreaterThanOrEqual(files.length - broken.size);
  });

  test("the client address: the socket's, and X-Forwarded-For only from a TRUSTED_PROXIES proxy", async () => {
    const body = eventEnvelope(`{"message":"where from"}`);
    const headers = { "x-forwarded-for": "203.0.113.9, 198.51.100.7" };
    // No trusted proxy: a client-written X-Forwarded-For is ignored.
    expect((await request(base, envUrl, body, { headers })).status).toBe(200);
    expect((await lastQueued(db)).client_ip).toBe("127.0.0.1");
    // Behind the documented proxy (here: loopback, trusted), the nearest untrusted hop is the client.
    const proxied = createIngestHandler({
      config: loadConfig({ DATA_DIR: tempDir(), ...LIMITS }),
      db,
      log: createLogger("silent"),
      trustedProxies: trustedProxyList("127.0.0.1"),
    });
    const behind = await startServer(proxied);
    try {
      expect((await request(behind.base, envUrl, body, { headers })).status).toBe(200);
      expect((await lastQueued(db)).client_ip).toBe("198.51.100.7");
    } finally {
      await stopServer(behind.server);
      await proxied.close();
    }
  });

  test("/store/: plain JSON, base64(zlib) and an envelope content type", async () => {
    const files = eventSampleFiles().slice(0, 5);
    for (const file of files) {
      const payload = fs.readFileSync(path.join(EVENT_SAMPLES, file));
      const r = await request(base, storeUrl, payload, { headers: { "content-type": "application/json" } });
      expect(r.status, `${file}: ${r.text}`).toBe(200);
      expect(r.json.id).toMatch(/^[0-9a-f]{32}$/);
      const row = await lastQueued(db);
      expect(row.kind).toBe("store");
      expect((JSON.parse(row.body.toString()) as { event_id: string }).event_id.replace(/-/g, "")).toBe(r.json.id);
    }
    const raven = zlib.deflateSync(JSON.stringify({ message: "old raven" })).toString("base64");
    const r2 = await request(base, `/api/${projectId}/store/`, raven, {
      headers: { "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${KEY}` },
    });
    expect(r2.status, r2.text).toBe(200);
    const row = await lastQueued(db);
    expect(JSON.parse(row.body.toString())).toEqual({ message: "old raven", event_id: r2.json.id });

    const env = eventEnvelope('{"message":"via store"}', { event_id: "9ec79c33ec9942ab8353589fcb2e04dc" });
    const r3 = await request(base, storeUrl, env, { headers: { "content-type": "application/x-sentry-envelope" } });
    expect(r3.json).toEqual({ id: "9ec79c33ec9942ab8353589fcb2e04dc" });
    expect((await lastQueued(db)).kind).toBe("envelope");
  });

  test("gzip, deflate (zlib and raw), br, identity aliases, and chunked bodies", async () => {
    const env = eventEnvelope('{"message":"encoded"}');
    const cases: Array<[string, Buffer]> = [
      ["gzip", zlib.gzipSync(env)],
      ["deflate", zlib.deflateSync(env)],
      ["deflate", zlib.deflateRawSync(env)],
      ["br", zlib.brotliCompressSync(env)],
      ["", env],
      ["UTF-8", env],
      ["identity", env],
    ];
    for (const [encoding, body] of cases) {
      for (const chunked of [false, true]) {
        const before = await queueDepth(db);
        const r = await request(base, envUrl, body, { headers: { "content-encoding": encoding }, chunked });
        expect(r.status, `${encoding || "empty"} chunked=${chunked}: ${r.text}`).toBe(200);
        expect(await queueDepth(db)).toBe(before + 1);
        expect(
          (await lastQueued(db)).body.subarray((await lastQueued(db)).body.indexOf(0x0a)).equals(env.subarray(env.indexOf(0x0a))),
        ).toBe(true);
      }
    }
  });

  test("auth carriers: X-Sentry-Auth, Authorization: Sentry, path without trailing slash, tunnel dsn", async () => {
    const env = eventEnvelope('{"message":"auth"}');
    const ok = async (url: string, headers: Record<string, string> = {}, body: Buffer = env) => {
      const r = await request(base, url, body, { headers });
      expect(r.status, `${url}: ${r.text}`).toBe(200);
    };
    await ok(`/api/${projectId}/envelope/`, { "x-sentry-auth": `Sentry sentry_key=${KEY}, sentry_version=7` });
    await ok(`/api/${projectId}/envelope`, { authorization: `Sentry sentry_key=${KEY}` });
    await ok(`/api/${projectId}/envelope?hsts=0&sentry_key=${KEY}`);
    // Tunnel: the envelope header dsn is the only auth.
    await ok(
      `/api/${projectId}/envelope/?hsts=0`,
      {},
      eventEnvelope('{"message":"tunnel"}', { dsn: `http://${KEY}@example.test/${projectId}` }),
    );
    const wrongProject = await request(
      base,
      `/api/${projectId}/envelope/`,
      eventEnvelope("{}", { dsn: `http://${KEY}@example.test/${otherProjectId}` }),
    );
    expectCatalogueError(wrongProject, 403, "invalid_dsn");
    const mismatch = await request(base, envUrl, eventEnvelope("{}", { dsn: `http://${OTHER_KEY}@example.test/${projectId}` }));
    expectCatalogueError(mismatch, 403, "invalid_dsn");
    const twoKeys = await request(base, envUrl.replace(KEY, OTHER_KEY), env, { headers: { "x-sentry-auth": `Sentry sentry_key=${KEY}` } });
    expectCatalogueError(twoKeys, 403, "invalid_dsn");
    // A Bearer token is API auth, not a DSN.
    expectCatalogueError(
      await request(base, `/api/${projectId}/envelope/`, env, { headers: { authorization: "Bearer abc" } }),
      401,
      "missing_auth",
    );
  });

  test("catalogue errors: status, code, X-Sentry-Error and CORS on each", async () => {
    const env = eventEnvelope('{"message":"x"}');
    const before = await queueDepth(db);
    expectCatalogueError(await request(base, `/api/999999/envelope/?sentry_key=${KEY}`, env), 404, "unknown_project");
    expectCatalogueError(
      await request(base, `/api/${projectId}/envelope/?sentry_key=ffffffffffffffffffffffffffffffff`, env),
      403,
      "invalid_dsn",
    );
    expectCatalogueError(await request(base, `/api/${otherProjectId}/envelope/?sentry_key=${KEY}`, env), 403, "invalid_dsn");
    expectCatalogueError(await request(base, `/api/${projectId}/envelope/?sentry_key=${DISABLED_KEY}`, env), 403, "project_disabled");
    expectCatalogueError(await request(base, `/api/${projectId}/envelope/`, env), 401, "missing_auth");
    expectCatalogueError(await request(base, `/api/${projectId}/store/`, '{"message":"x"}'), 401, "missing_auth");
    expectCatalogueError(await request(base, envUrl, "this is not an envelope"), 400, "invalid_envelope");
    expectCatalogueError(await request(base, envUrl, ""), 400, "invalid_envelope");
    expectCatalogueError(await request(base, envUrl, '{}\n{"type":"attachment","length":100}\nshort'), 400, "invalid_envelope");
    expectCatalogueError(await request(base, envUrl, '{}\n{"type":"event"}\n{"message":'), 400, "invalid_json");
    expectCatalogueError(await request(base, storeUrl, '{"message":'), 400, "invalid_json");
    expectCatalogueError(await request(base, envUrl, '{"event_id":"not-a-uuid"}\n{"type":"event"}\n{}'), 400, "invalid_event_id");
    expectCatalogueError(
      await request(base, envUrl, zlib.gzipSync(env).subarray(0, 20), { headers: { "content-encoding": "gzip" } }),
      400,
      "invalid_envelope",
    );
    expectCatalogueError(await request(base, envUrl, env, { headers: { "content-encoding": "compress" } }), 415, "unsupported_encoding");
    expectCatalogueError(await request(base, envUrl, env, { method: "PUT" }), 405, "method_not_allowed");
    // Sizes: body over the compressed limit (declared, and streamed), event item over maxEventSize.
    const big = eventEnvelope(JSON.stringify({ message: "x".repeat(2 * MiB) }));
    expectCatalogueError(await request(base, envUrl, big), 413, "payload_too_large");
    expectCatalogueError(await request(base, envUrl, big, { chunked: true }), 413, "payload_too_large");
    const bigEvent = eventEnvelope(JSON.stringify({ message: "x".repeat(300 * 1024) }));
    expectCatalogueError(await request(base, envUrl, bigEvent), 413, "payload_too_large");
    expectCatalogueError(await request(base, storeUrl, JSON.stringify({ message: "x".repeat(300 * 1024) })), 413, "payload_too_large");
    const longHeader = `{"pad":"${"x".repeat(10_000)}"}\n{"type":"event"}\n{}`;
    expectCatalogueError(await request(base, envUrl, longHeader), 413, "payload_too_large");
    // Hostile input in an item type must not break the X-Sentry-Error header.
    const r = await request(base, envUrl, '{}\n{"type":"evil\\r\\nX-Injected: 1","length":99}\nab');
    expectCatalogueError(r, 400, "invalid_envelope");
    expect(r.headers["x-injected"]).toBeUndefined();
    expect(await queueDepth(db)).toBe(before);
  });

  test("a gzip bomb (200 MiB of zeros) is refused at the 1 MiB limit, quickly", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(200 * MiB), { level: 9 });
    expect(bomb.length).toBeLessThan(MiB);
    const before = await queueDepth(db);
    const cpu0 = process.cpuUsage();
    const r = await request(base, envUrl, bomb, { headers: { "content-encoding": "gzip" }, chunked: true });
    const cpu = process.cpuUsage(cpu0);
    expectCatalogueError(r, 413, "payload_too_large");
    // CPU time of this process, not wall time, so a busy machine does not change the verdict.
    // Inflating all 200 MiB costs several hundred ms of CPU (zlib threads count too); stopping at
    // the limit costs a few ms.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(150);
    const brBomb = zlib.brotliCompressSync(Buffer.alloc(64 * MiB));
    expectCatalogueError(await request(base, envUrl, brBomb, { headers: { "content-encoding": "br" } }), 413, "payload_too_large");
    expect(await queueDepth(db)).toBe(before);
  });

  test("OPTIONS preflight → 200 with the allow headers", async () => {
    const r = await request(base, envUrl, undefined, {
      method: "OPTIONS",
      headers: { origin: "http://page.test", "access-control-request-method": "POST", "access-control-request-headers": "x-custom-test" },
    });
    expect(r.status).toBe(200);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["access-control-allow-methods"]).toContain("POST");
    expect(r.headers["access-control-allow-headers"]).toContain("x-sentry-auth");
    expect(r.headers["access-control-allow-headers"]).toContain("content-type");
    expect(r.headers["access-control-allow-headers"]).toContain("x-custom-test");
    expect(r.headers["access-control-expose-headers"]).toBe("x-sentry-error, x-sentry-rate-limits, retry-after");
    expect(r.headers["access-control-max-age"]).toBe("3600");
  });

  test("non-ingest paths are left to the caller", async () => {
    for (const p of ["/", "/api/0/projects/", "/api/abc/envelope/", "/api/1/envelopes/", "/api/1/store/x"]) {
      const r = await request(base, p, undefined, { method: "GET" });
      expect(r.status, p).toBe(404);
      expect(r.text).toBe("not ingest");
    }
  });

  test("a client that disconnects mid-body: nothing queued, server fine", async () => {
    const before = await queueDepth(db);
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.write(`POST ${envUrl} HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{}\n{"type":"event"}\n{"mess`);
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(await queueDepth(db)).toBe(before);
    expect((await request(base, envUrl, eventEnvelope("{}"))).status).toBe(200);
  });

  test("a body that does not finish in time → 408 request_timeout", async () => {
    const { port } = server.address() as AddressInfo;
    const text = await new Promise<string>((resolve) => {
      let out = "";
      const s = net.connect(port, "127.0.0.1", () => {
        s.write(`POST ${envUrl} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{}\n{"\r\n`);
      });
      s.on("data", (d) => {
        out += d.toString();
      });
      s.on("close", () => resolve(out));
      s.on("error", () => resolve(out));
    });
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(text).toContain('"code":"request_timeout"');
    expect(text.toLowerCase()).toContain("access-control-allow-origin: *");
  });

  test("a failing queue write answers 503 overloaded, and the process survives", async () => {
    const config = loadConfig({ DATA_DIR: tempDir(), ...LIMITS });
    const failing = createIngestHandler({
      config,
      db,
      log: createLogger("silent"),
      enqueue: async () => {
        throw new Error("disk full");
      },
    });
    const s = await startServer(failing);
    try {
      const rs = await Promise.all([1, 2, 3].map(() => request(s.base, envUrl, eventEnvelope("{}"))));
      for (const r of rs) expectCatalogueError(r, 503, "overloaded");
    } finally {
      await stopServer(s.server);
      await failing.close();
    }
  });

  test("concurrent requests are group-committed and all answered after the commit", async () => {
    const before = await queueDepth(db);
    const rs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => request(base, envUrl, eventEnvelope(JSON.stringify({ message: `c${i}` })))),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(new Set(rs.map((r) => r.json.id)).size).toBe(40);
    expect(await queueDepth(db)).toBe(before + 40);
  });

  test("the real @sentry/node SDK (child process) gets its exception into the queue", async () => {
    const dir = path.join(process.cwd(), ".tmp", `sdk-node-${process.pid}-${dialect}`);
    fs.mkdirSync(dir, { recursive: true });
    const script = path.join(dir, "send.mjs");
    fs.writeFileSync(
      script,
      [
        'import * as Sentry from "@sentry/node";',
        'Sentry.init({ dsn: process.env.DSN, release: "ingest-test@1.0.0", environment: "test" });',
        'Sentry.captureException(new Error("hello from the real node sdk"));',
        "const ok = await Sentry.flush(10000);",
        "process.exit(ok ? 0 : 3);",
      ].join("\n"),
    );
    const dsn = `http://${KEY}@${base.slice("http://".length)}/${projectId}`;
    const before = await queueDepth(db);
    try {
      await promisify(execFile)(process.execPath, [script], { env: { ...process.env, DSN: dsn }, timeout: 30_000 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(await queueDepth(db)).toBeGreaterThan(before);
    const rows = await queueStore(db)
      .kysely.selectFrom("queue")
      .innerJoin("queue_bodies as b", "b.id", "queue.id")
      .select(["b.body"])
      .orderBy("queue.id", "desc")
      .limit(5)
      .execute();
    const bodies = rows.map((r) => Buffer.from(r.body).toString("utf8"));
    const withEvent = bodies.find((b) => b.includes("hello from the real node sdk"));
    expect(withEvent).toBeDefined();
    const env = parseEnvelope(Buffer.from(withEvent as string), { maxHeaderLine: 8192, maxEventSize: MiB, maxAttachmentSize: MiB });
    expect(env.headers.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(env.items.map((i) => i.headers.type)).toContain("event");
  });
});
