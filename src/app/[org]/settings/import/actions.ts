"use server";
/** Importing from Sentry as Server Actions (owners; the service checks on every call). The token goes to the run, never back. */
import type { ImportRunState, ImportStartState } from "@/ui/orgs/import-from-sentry";
import { currentViewer, errorCode, services } from "../../../_lib/server";
import { text } from "../../projects/form-result";

function failure(err: unknown): { message: string; fields: Record<string, string> } {
  const code = errorCode(err);
  if (!code) return { message: "Something went wrong on our side; nothing was started.", fields: {} };
  // A refusal says what the role lacks, in the permission table's words (as every form does).
  if (code === "forbidden") return { message: `Not changed: ${(err as Error).message}`, fields: {} };
  const e = err as { message?: string; fields?: Array<{ field: string; message: string }> };
  return { message: e.message ?? code, fields: Object.fromEntries((e.fields ?? []).map((f) => [f.field, f.message])) };
}

// permission: org.import
export async function startImportAction(_prev: ImportStartState, data: FormData): Promise<ImportStartState> {
  const viewer = await currentViewer();
  if (!viewer) return { status: "error", message: "Your session ended: sign in again.", fields: {}, at: Date.now() };
  try {
    const run = await (await services()).importRuns.start(viewer, text(data, "org", 100), {
      url: text(data, "url", 2000),
      token: text(data, "token", 500),
      org: text(data, "sourceOrg", 100),
      dryRun: data.get("dryRun") === "on",
      issues: data.get("issues") === "on",
      since: text(data, "since", 10).trim() || "30d",
    });
    return { status: "started", run, at: Date.now() };
  } catch (err) {
    return { status: "error", ...failure(err), at: Date.now() };
  }
}

// permission: org.import
export async function importRunAction(org: string, runId: string): Promise<ImportRunState> {
  const viewer = await currentViewer();
  if (!viewer) return { ok: false, message: "Your session ended: sign in again." };
  try {
    return { ok: true, run: await (await services()).importRuns.status(viewer, String(org), String(runId)) };
  } catch (err) {
    return { ok: false, message: failure(err).message };
  }
}
