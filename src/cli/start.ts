/**
 * Starts Errata: one HTTP server whose roles decide what it serves.
 *
 *   ingest  → /api/{id}/envelope/ and /store/ by our own handler (never through Next.js)
 *   web     → everything else through Next.js (custom server), plus /api/auth/* and the REST API
 *   worker  → the digest worker in a worker_thread, draining the durable queue
 *
 * /healthz, /readyz and /metrics are served by every role. The database is migrated on start.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Config } from "../config";
import { AppError } from "../core/errors";
import { clientIp, parseTrustedProxies, type TrustedProxies } from "../core/security/client-ip";
import { createIngestHandler, isIngestPath } from "../ingest/ingest-handler";
import { createLogger, type Logger } from "../log";
import { registry } from "../metrics";
import { startQuietTrim } from "../native-heap";
import { collectGarbage } from "../pipeline/collect-garbage";
import { startWorkerThread } from "../pipeline/start-worker-thread";
import { setAppContext } from "../server/app-context";
import { createAuth, migrateAuth } from "../server/auth/auth";
import { CLIENT_IP_HEADER } from "../server/auth/requests";
import { createServices } from "../server/create-services";
import { jsonMethodNotAllowed } from "../server/http/api-405";
import { createResponseCompression } from "../server/http/compress-responses";
import { metricsRefusal } from "../server/http/metrics-access";
import { refuseForgedRequest } from "../server/http/origin-guard";
import { createSecurityHeaders } from "../server/http/security-headers";
import { openDb } from "../storage/db";
import { getOrCreateSecret } from "../storage/installation";
import { migrateToLatest } from "../storage/migrate";
import { THEME_BOOT_SCRIPT } from "../ui/shell/theme-script";

export interface RunningErrata {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

export async function startErrata(opts: { config: Config; projectRoot: string; dev?: boolean; log?: Logger }): Promise<RunningErrata> {
  const { config, projectRoot } = opts;
  const log = opts.log ?? createLogger(config.logLevel);
  const db = openDb(config.database);
  const applied = await migrateToLatest(db);
  if (applied.length > 0) log.info({ applied }, "database migrated");

  const secret = config.secret ?? (await getOrCreateSecret(db));
  const auth = createAuth(db, config, secret);
  await migrateAuth(db, config, secret);
  const services = createServices({ db, auth, config, log });
  setAppContext(services);

  const roles = new Set(config.roles);
  const trustedProxies = trustedProxyList(config.trustedProxies);
  const setSecurityHeaders = createSecurityHeaders({
    https: config.publicUrl.startsWith("https://"),
    dev: opts.dev ?? false,
    inlineScripts: [THEME_BOOT_SCRIPT],
  });
  const worker = roles.has("worker") ? startWorkerThread(config, log.child({ mod: "worker" })) : null;
  // SQLite: the digest worker's and ingest's queue-writer connections checkpoint the WAL, each on
  // its own thread. A checkpoint on this connection (an fsync) would stall the event loop.
  if (db.sqlite && (worker || roles.has("ingest"))) db.sqlite.pragma("wal_autocheckpoint = 0");
  // After a burst of ingest: once nothing was committed for a while and the digest helpers have
  // left, this thread's garbage is collected and malloc's free pages handed back (native-heap.ts).
  const quiet = startQuietTrim({
    quietMs: QUIET_TRIM_MS,
    minGapMs: QUIET_TRIM_GAP_MS,
    busy: () => (worker?.running() ?? 1) > 1,
    collect: () => {
      // The pages this thread's connection cached while the burst was served go back too.
      db.sqlite?.pragma("shrink_memory");
      collectGarbage();
    },
  });
  const ingest = roles.has("ingest")
    ? createIngestHandler({
        config,
        db,
        log: log.child({ mod: "ingest" }),
        trustedProxies,
        // A worker in this process starts on the new rows at once instead of at its next poll.
        onCommit: () => {
          worker?.wake();
          quiet.touch();
        },
      })
    : null;
  const web = roles.has("web") ? await prepareNext(projectRoot, opts.dev ?? false, config) : null;

  const compress = createResponseCompression();
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    if (ingest?.handle(req, res)) return;
    // A process without the ingest role (split deployment): say so in JSON instead of the web's 404
    // page, so `send-test-event` and SDK debug logs point at the cause (DSN host vs PUBLIC_INGEST_URL).
    if (!ingest && isIngestPath(url)) {
      const e = new AppError("ingest_not_served");
      return sendJson(res, e.status, { error: { code: e.code, message: e.message } });
    }
    if (url === "/healthz") return sendJson(res, 200, { ok: true });
    if (url === "/readyz") {
      services.health.ready().then(
        (r) => sendJson(res, r.ok ? 200 : 503, r),
        () => sendJson(res, 503, { ok: false }),
      );
      return;
    }
    if (url === "/metrics") {
      const refused = metricsRefusal(config.metricsToken, req.headers.authorization, req.socket.remoteAddress);
      if (refused) {
        const e = new AppError(refused, "/metrics needs the METRICS_TOKEN bearer token (or, without one, a loopback client).");
        const headers = refused === "unauthenticated" ? { "www-authenticate": 'Bearer realm="metrics"' } : {};
        res.writeHead(e.status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify({ error: { code: e.code, message: e.message } }));
        return;
      }
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": registry.contentType });
          res.end(text);
        },
        () => sendJson(res, 500, { error: { code: "internal_error" } }),
      );
      return;
    }
    if (web) {
      setSecurityHeaders(req, res);
      if (refuseForgedRequest(req, res, config.publicUrl)) return;
      // The login throttle counts per client address: the socket's, or X-Forwarded-For's when
      // the socket is a TRUSTED_PROXIES proxy. A client-sent value of this header is overwritten.
      req.headers[CLIENT_IP_HEADER] = clientIp(req.socket.remoteAddress, headerValue(req.headers["x-forwarded-for"]), trustedProxies);
      jsonMethodNotAllowed(req, res);
      compress(req, res, () =>
        web(req, res).catch((err: unknown) => {
          log.error({ err }, "web request failed");
          if (!res.headersSent) sendJson(res, 500, { error: { code: "internal_error", message: "Something went wrong on our side." } });
          else res.end();
        }),
      );
      return;
    }
    sendJson(res, 404, { error: { code: "not_found", message: "Not found." } });
  });
  // Slow clients must not hold sockets forever (ingest enforces its own body timeout too).
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  log.info({ url, roles: [...roles], database: config.database.kind }, "Errata is listening");

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      quiet.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await ingest?.close();
      await worker?.stop();
      await db.close();
    })();
    return closing;
  };
  return { url, server, close };
}

/** Ingest quiet for this long (two checks) → trim; the digest helpers leave after 5 s idle. */
const QUIET_TRIM_MS = 5_000;
/** …and at most once per 30 s (each trim starts with a full GC of the main thread). */
const QUIET_TRIM_GAP_MS = 30_000;

type NodeHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

async function prepareNext(projectRoot: string, dev: boolean, config: Config): Promise<NodeHandler> {
  if (!dev && !fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    throw new Error(`No production build in ${projectRoot}/.next — run \`npm run build\` first (npm start does this for you).`);
  }
  const { default: next } = await import("next");
  const app = next({ dev, dir: projectRoot, hostname: config.host, port: config.port, quiet: !dev });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (req, res) => handle(req, res);
}

function trustedProxyList(value: string): TrustedProxies {
  const parsed = parseTrustedProxies(value);
  if (!parsed.ok) throw new Error(`TRUSTED_PROXIES: "${parsed.bad}" is not an IP address or CIDR range`);
  return parsed.proxies;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The directory holding package.json and .next — from src/cli (tsx) or dist/ (bundled). */
export function findProjectRoot(from: string): string {
  let dir = from;
  for (let i = 0; i < 6; i++) {
    if (fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "src", "app"))) return dir;
    dir = path.dirname(dir);
  }
  return process.cwd();
}
