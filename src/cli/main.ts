/**
 * The `errata` operator command. Every subcommand reads the same configuration as the server
 * (environment variables, see src/config.ts) and talks to the same database.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { type Config, ConfigError, loadConfig, parseRoles } from "../config";
import { parseDsn } from "../core/dsn";
import { isAppError } from "../core/errors";
import { createLogger } from "../log";
import { createAuth, migrateAuth } from "../server/auth/auth";
import { createServices } from "../server/create-services";
import { openDb } from "../storage/db";
import { getOrCreateSecret } from "../storage/installation";
import { migrateToLatest } from "../storage/migrate";
import { registerAlertCommands } from "./alert-commands";
import { registerBackupCommands } from "./backup-command";
import { registerImportCommands } from "./import-command";
import { nextjsTestPair } from "./nextjs-test-pair";
import { findProjectRoot, startErrata } from "./start";

const here = path.dirname(fileURLToPath(import.meta.url));

async function withServices<T>(fn: (s: ReturnType<typeof createServices>, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = openDb(config.database);
  try {
    await migrateToLatest(db);
    const secret = config.secret ?? (await getOrCreateSecret(db));
    const auth = createAuth(db, config, secret);
    await migrateAuth(db, config, secret);
    return await fn(createServices({ db, auth, config, log: createLogger("warn") }), config);
  } finally {
    await db.close();
  }
}

/** A repeated signal within this long of the first is the same request (Ctrl-C under npm can arrive twice). */
const REPEAT_SIGNAL_MS = 2_000;
let stopRequestedAt: number | undefined;

/**
 * SIGINT / SIGTERM: stop gracefully (no new requests, ingest's pending commits written, the queue
 * digested, the database closed), then exit 0. A signal again, later than REPEAT_SIGNAL_MS, ends
 * the process at once (what was acknowledged stays in the queue for the next start).
 */
function onStopSignal(close: () => Promise<void>): (signal: NodeJS.Signals) => void {
  return (signal) => {
    if (stopRequestedAt === undefined) {
      stopRequestedAt = Date.now();
      process.stdout.write(`${signal}: stopping Errata…\n`);
      close().then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`Stopping failed: ${(err as Error)?.message ?? String(err)}\n`);
          process.exit(1);
        },
      );
      return;
    }
    if (Date.now() - stopRequestedAt < REPEAT_SIGNAL_MS) return;
    process.stderr.write(`${signal} again: exiting without waiting for the stop to finish.\n`);
    process.exit(130);
  };
}

function program(): Command {
  const cli = new Command("errata").description("Errata — self-hosted error tracking for the Sentry SDKs").showHelpAfterError();

  cli
    .command("start")
    .description("start the server (ingest, web UI and digest worker in one process by default)")
    .option("--role <roles>", "comma-separated roles: web, ingest, worker")
    .option("--dev", "run Next.js in development mode")
    .action(async (opts: { role?: string; dev?: boolean }) => {
      const config = loadConfig();
      if (opts.role) config.roles = parseRoles(opts.role);
      const running = await startErrata({ config, projectRoot: findProjectRoot(here), dev: opts.dev });
      process.on("SIGINT", onStopSignal(running.close));
      process.on("SIGTERM", onStopSignal(running.close));
      process.stdout.write(`Errata is running at ${config.publicUrl}\n`);
    });

  cli
    .command("migrate")
    .description("apply pending database migrations and exit")
    .action(async () => {
      const config = loadConfig();
      const db = openDb(config.database);
      try {
        const applied = await migrateToLatest(db);
        const secret = config.secret ?? (await getOrCreateSecret(db));
        await migrateAuth(db, config, secret);
        process.stdout.write(applied.length ? `Applied: ${applied.join(", ")}\n` : "Database is up to date.\n");
      } finally {
        await db.close();
      }
    });

  const user = cli.command("user").description("manage users");
  user
    .command("create")
    .description("create a user (or reset an existing user's password) as owner of an organization, created when missing")
    .requiredOption("--email <email>")
    .requiredOption("--password <password>")
    .requiredOption("--org <slug>")
    .option("--name <name>")
    .action(async (opts: { email: string; password: string; org: string; name?: string }) => {
      const r = await withServices((s) =>
        s.operator.createOwner({ email: opts.email, password: opts.password, orgSlug: opts.org, name: opts.name }),
      );
      process.stdout.write(`${r.created ? "Created" : "Updated"} ${opts.email} as owner of ${r.orgSlug}\n`);
    });

  const project = cli.command("project").description("manage projects");
  project
    .command("create")
    .description("create a project with a DSN key and print the DSN")
    .requiredOption("--org <slug>")
    .requiredOption("--name <name>")
    .option("--platform <platform>", "e.g. javascript-nextjs, node, python", "other")
    .action(async (opts: { org: string; name: string; platform: string }) => {
      const r = await withServices((s) => s.operator.createProject({ orgSlug: opts.org, name: opts.name, platform: opts.platform }));
      process.stdout.write(`${r.dsn}\n`);
    });

  const token = cli.command("token").description("manage API tokens");
  token
    .command("create")
    .description("create a bearer token for a user and print it (shown once)")
    .requiredOption("--email <email>")
    .requiredOption("--scopes <scopes>", "comma-separated, e.g. org:read,project:read,event:read")
    .option("--name <name>")
    .action(async (opts: { email: string; scopes: string; name?: string }) => {
      const scopes = opts.scopes
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const r = await withServices((s) => s.operator.createToken({ email: opts.email, scopes, name: opts.name }));
      process.stdout.write(`${r.token}\n`);
    });

  cli
    .command("send-test-event")
    .description("send a test error to a DSN, as an SDK would")
    .requiredOption("--dsn <dsn>")
    .option("--message <message>", "exception message")
    .option("--nextjs", "send a Next.js server error and its browser mirror, linked by one digest")
    .action(async (opts: { dsn: string; message?: string; nextjs?: boolean }) => {
      if (opts.nextjs) {
        const sent = await sendNextjsTestPair(opts.dsn, opts.message ?? "This is a test server error from errata send-test-event --nextjs");
        process.stdout.write(
          `Sent server event ${sent.serverId} and browser event ${sent.browserId} with digest ${sent.digest}\n` +
            `Paste ${sent.digest} into Errata's search box, or open /<org>/digest/${sent.digest}\n`,
        );
        return;
      }
      const id = await sendTestEvent(opts.dsn, opts.message ?? "This is a test error from errata send-test-event");
      process.stdout.write(`Sent event ${id}\n`);
    });

  registerAlertCommands(cli);
  registerImportCommands(cli);
  registerBackupCommands(cli);
  return cli;
}

export async function sendTestEvent(dsn: string, message: string): Promise<string> {
  const eventId = randomUUID().replace(/-/g, "");
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: "node",
    level: "error",
    logger: "errata.cli",
    environment: "test",
    tags: { source: "send-test-event" },
    exception: {
      values: [
        {
          type: "Error",
          value: message,
          mechanism: { type: "generic", handled: true },
          stacktrace: {
            frames: [{ function: "sendTestEvent", filename: "errata/cli.js", module: "errata.cli", lineno: 1, colno: 1, in_app: true }],
          },
        },
      ],
    },
    sdk: { name: "errata.cli", version: "0.1.0" },
  };
  await postEvent(dsn, event);
  return eventId;
}

/** The server half, then the browser half, of one Next.js server error (one digest). */
export async function sendNextjsTestPair(dsn: string, message: string): Promise<{ digest: string; serverId: string; browserId: string }> {
  if (!parseDsn(dsn)) throw new ConfigError(`Not a valid DSN: ${dsn}`);
  const pair = nextjsTestPair(message);
  await postEvent(dsn, pair.server);
  await postEvent(dsn, pair.browser);
  return { digest: pair.digest, serverId: String(pair.server.event_id), browserId: String(pair.browser.event_id) };
}

/** One event in an envelope to the DSN's project, as an SDK sends it. */
export async function postEvent(dsn: string, event: Record<string, unknown>): Promise<void> {
  const parsed = parseDsn(dsn);
  if (!parsed) throw new ConfigError(`Not a valid DSN: ${dsn}`);
  const header = { event_id: event.event_id, sent_at: new Date().toISOString(), dsn };
  const body = `${JSON.stringify(header)}\n{"type":"event"}\n${JSON.stringify(event)}`;
  const base = `${parsed.protocol}://${parsed.host}${parsed.port ? `:${parsed.port}` : ""}${parsed.path ? `/${parsed.path}` : ""}`;
  const res = await fetch(`${base}/api/${parsed.projectId}/envelope/`, {
    method: "POST",
    headers: {
      "content-type": "application/x-sentry-envelope",
      "x-sentry-auth": `Sentry sentry_key=${parsed.publicKey}, sentry_version=7, sentry_client=errata-cli/0.1.0`,
    },
    body,
  });
  if (!res.ok) throw new Error(`Errata answered ${res.status}: ${await res.text()}`);
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().exitOverride().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    if (isAppError(err)) {
      process.stderr.write(`error: ${err.message} (${err.code})\n`);
      for (const f of err.fields ?? []) process.stderr.write(`  ${f.field}: ${f.message}\n`);
      process.exit(2);
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  }
}

// Run when executed directly (tsx src/cli/main.ts or the bundled dist/cli.mjs).
const invoked = process.argv[1] ? path.resolve(process.argv[1]) : "";
if (invoked === fileURLToPath(import.meta.url)) {
  void main(process.argv);
}
