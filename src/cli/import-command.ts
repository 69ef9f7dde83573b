/**
 * `errata import sentry`: moves an organization from Sentry's REST API (sentry.io, self-hosted,
 * GlitchTip, another Errata) into this installation, with operator trust like the other
 * subcommands. A progress bar on a terminal (one line per step otherwise) goes to stderr; the report
 * goes to stdout, as text or `--json`.
 */
import type { Command } from "commander";
import { loadConfig } from "../config";
import { AppError } from "../core/errors";
import { type ImportProgress, type ImportReport, summarizeReport } from "../core/import/sentry";
import { migrateAuth } from "../server/auth/auth";
import { createImportServices } from "../server/import/sentry-import";
import { openDb } from "../storage/db";
import { getOrCreateSecret } from "../storage/installation";
import { migrateToLatest } from "../storage/migrate";

interface ImportOptions {
  url: string;
  token: string;
  org: string;
  into?: string;
  dryRun?: boolean;
  json?: boolean;
  issues?: boolean;
  since?: string;
  eventsPerIssue?: string;
}

export function registerImportCommands(cli: Command): void {
  const imp = cli.command("import").description("import from another error tracker");
  imp
    .command("sentry")
    .description("import an organization (teams, projects, DSN keys unchanged) from Sentry's REST API; safe to run again")
    .requiredOption("--url <url>", "the Sentry server's base URL, e.g. https://sentry.io or https://sentry.example.com")
    .requiredOption("--token <token>", "an auth token with org:read, project:read, team:read and member:read (or SENTRY_AUTH_TOKEN)")
    .requiredOption("--org <slug>", "the organization's slug on the Sentry server")
    .option("--into <slug>", "an existing organization here to import into (default: the source's slug, created when missing)")
    .option("--issues", "also import issues (status, assignee, counts) with their latest events")
    .option("--since <period>", "with --issues: those last seen within this period (30d, 12h, 2w)", "30d")
    .option("--events-per-issue <n>", "with --issues: the latest events kept per issue (1–100)", "10")
    .option("--dry-run", "read everything and report what would change, without writing")
    .option("--json", "print the report as JSON")
    .action(async (opts: ImportOptions) => {
      const config = loadConfig();
      const db = openDb(config.database);
      const bar = progressPrinter(process.stderr);
      try {
        await migrateToLatest(db);
        // Members are matched by their account's email, in Better Auth's tables.
        await migrateAuth(db, config, config.secret ?? (await getOrCreateSecret(db)));
        const imports = createImportServices({
          db,
          now: Date.now,
          policy: config.import,
          invitationDays: config.invitationDays,
          stallAfter: config.import.testStallAfter,
          authorize: () => Promise.reject(new AppError("forbidden")),
        });
        const report = await imports.importAsOperator(
          {
            url: opts.url,
            token: opts.token,
            org: opts.org,
            into: opts.into,
            dryRun: opts.dryRun,
            issues: opts.issues,
            since: opts.since,
            eventsPerIssue: Number(opts.eventsPerIssue ?? 10) || 10,
          },
          { onProgress: bar.progress, onWait: bar.wait },
        );
        bar.end();
        process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : renderReport(report));
      } finally {
        bar.end();
        await db.close();
      }
    });
}

/** A bar redrawn in place on a terminal; one line per step in a log or a pipe. */
function progressPrinter(out: NodeJS.WriteStream) {
  const tty = out.isTTY === true;
  let drawn = false;
  return {
    progress(p: ImportProgress) {
      if (!tty) {
        out.write(p.total > 0 ? `[${p.done}/${p.total}] ${p.step}\n` : `${p.step}…\n`);
        return;
      }
      const width = 24;
      const filled = p.total > 0 ? Math.round((p.done / p.total) * width) : 0;
      const bar = p.total > 0 ? `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done}/${p.total} ` : "";
      out.write(`\r\x1b[2K${bar}${p.step}`.slice(0, (out.columns ?? 100) + 8));
      drawn = true;
    },
    wait(seconds: number, path: string) {
      out.write(`${tty ? "\r\x1b[2K" : ""}rate limited on ${path}: waiting ${seconds} s as the server asks${tty ? "" : "\n"}`);
      drawn = tty;
    },
    end() {
      if (drawn) out.write("\n");
      drawn = false;
    },
  };
}

export function renderReport(r: ImportReport): string {
  const lines = r.entries.map((e) => `${e.action.padEnd(9)} ${e.kind.padEnd(12)} ${e.name}${e.note ? `  (${e.note})` : ""}`);
  const c = summarizeReport(r);
  const head = r.dryRun
    ? `Dry run: nothing was written. Into organization "${r.organization}":`
    : `Imported into organization "${r.organization}":`;
  return `${[head, ...lines, `${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.skipped} skipped.`].join("\n")}\n`;
}
