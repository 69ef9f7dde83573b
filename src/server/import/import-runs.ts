/**
 * The settings page's imports (issue 32): an owner starts a run, which goes on in this process
 * after the request has answered; the page polls the run row for its progress bar and, at the end,
 * its report or error. The token lives in the running closure only — never in the row or a log.
 * Owners of the organization only, checked on every call.
 */
import { randomUUID } from "node:crypto";
import { AppError, isAppError } from "../../core/errors";
import type { ImportProgress, ImportReport } from "../../core/import/sentry";
import type { Db } from "../../storage/db";
import { findImportRun, insertImportRun, recentImportRuns, updateImportRun } from "../../storage/import/import-runs";
import type { Action } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";
import type { ImportServices, SentryImportInput } from "./sentry-import";

/** What the page shows of a run. */
export interface ImportRunView {
  id: string;
  /** interrupted: the process ended while it ran (run it again: the import resumes) */
  status: "running" | "done" | "failed" | "interrupted";
  progress: ImportProgress;
  report: ImportReport | null;
  error: { code: string; message: string } | null;
  startedAt: number;
  updatedAt: number;
}

export interface ImportRunServices {
  start(viewer: Viewer, org: string, input: Omit<SentryImportInput, "into">): Promise<ImportRunView>;
  status(viewer: Viewer, org: string, runId: string): Promise<ImportRunView>;
  recent(viewer: Viewer, org: string): Promise<ImportRunView[]>;
}

/** A running row not written for this long belongs to a process that is gone. */
const STALE_MS = 10 * 60_000;
/** Progress is written at most this often (a run may have thousands of steps). */
const WRITE_EVERY_MS = 250;

export function createImportRunServices(deps: {
  db: Db;
  now: () => number;
  imports: ImportServices;
  authorize: (viewer: Viewer, orgSlug: string, action: Action) => Promise<OrgSummary>;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}): ImportRunServices {
  const { db, now } = deps;

  async function owner(viewer: Viewer, org: string): Promise<OrgSummary> {
    return deps.authorize(viewer, org, "org.import");
  }

  function view(r: Awaited<ReturnType<typeof findImportRun>> & object): ImportRunView {
    const parse = <T>(s: string | null): T | null => {
      if (s === null) return null;
      try {
        return JSON.parse(s) as T;
      } catch {
        return null;
      }
    };
    const stale = r.status === "running" && now() - r.updatedAt > STALE_MS;
    return {
      id: r.id,
      status: stale ? "interrupted" : r.status,
      progress: parse<ImportProgress>(r.progress) ?? { step: "", done: 0, total: 0 },
      report: parse<ImportReport>(r.report),
      error: parse<{ code: string; message: string }>(r.error),
      startedAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  return {
    async start(viewer, org, input) {
      const o = await owner(viewer, org);
      const running = (await recentImportRuns(db, o.id, 5)).map(view).find((r) => r.status === "running");
      if (running) throw new AppError("conflict", "An import into this organization is running: wait for it to end.");
      if (!input.url.trim()) throw AppError.field("url", "required", "The Sentry server's URL is required.");
      if (!input.token.trim()) throw AppError.field("token", "required", "An auth token from the Sentry server is required.");
      if (!input.org.trim()) throw AppError.field("org", "required", "The organization's slug on the Sentry server is required.");
      const id = randomUUID();
      const first: ImportProgress = { step: "connecting", done: 0, total: 0 };
      await insertImportRun(db, { id, orgId: o.id, userId: viewer.userId, progress: JSON.stringify(first), now: now() });

      let last = 0;
      let latest = first;
      let writing = Promise.resolve();
      const write = (p: ImportProgress, force = false) => {
        latest = p;
        if (!force && now() - last < WRITE_EVERY_MS) return;
        last = now();
        // Chained: writes land in order, and one failing does not stop the import.
        writing = writing.then(() => updateImportRun(db, id, { progress: JSON.stringify(latest), now: now() })).catch(() => {});
      };
      const hooks = {
        onProgress: (p: ImportProgress) => write(p),
        onWait: (seconds: number, path: string) => write({ ...latest, step: `rate limited on ${path}: waiting ${seconds} s` }, true),
      };
      void deps.imports
        .importInto(viewer, { ...input, into: o.slug }, hooks)
        .then(async (report) => {
          await writing;
          const done = report.entries.length;
          await updateImportRun(db, id, {
            status: "done",
            progress: JSON.stringify({ step: "done", done, total: done }),
            report: JSON.stringify(report),
            now: now(),
          });
        })
        .catch(async (err: unknown) => {
          await writing;
          const error = isAppError(err)
            ? { code: err.code, message: err.message }
            : { code: "internal_error", message: "The import stopped on an unexpected error; run it again to resume." };
          if (!isAppError(err)) deps.log?.("import from Sentry failed", { err: String(err) });
          await updateImportRun(db, id, { status: "failed", error: JSON.stringify(error), now: now() }).catch(() => {});
        });
      const row = await findImportRun(db, o.id, id);
      if (!row) throw new AppError("not_found");
      return view(row);
    },

    async status(viewer, org, runId) {
      const o = await owner(viewer, org);
      const row = typeof runId === "string" && runId.length <= 64 ? await findImportRun(db, o.id, runId) : undefined;
      if (!row) throw new AppError("not_found", "No such import run.");
      return view(row);
    },

    async recent(viewer, org) {
      const o = await owner(viewer, org);
      return (await recentImportRuns(db, o.id, 5)).map(view);
    },
  };
}
