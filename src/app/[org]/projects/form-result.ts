/**
 * Helpers of the project Server Actions: the session's viewer, form fields read defensively, and
 * service errors turned into a `FormResult` the form can show (fields named, nothing internal).
 */
import { revalidatePath } from "next/cache";
import type { Viewer } from "@/server/types";
import type { FormResult } from "@/ui/kit/settings-form";
import { currentViewer, services } from "../../_lib/server";

export function text(data: FormData, name: string, max = 1000): string {
  const v = data.get(name);
  return typeof v === "string" ? v.slice(0, max) : "";
}

/** A number field: "" → null (use the default); anything else is passed on for the service to judge. */
export function optionalNumber(data: FormData, name: string): number | null | string {
  const v = text(data, name, 40)
    .trim()
    .replace(/[,_\s]/g, "");
  if (v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}

/** A list typed one per line (or comma separated). */
export function lines(data: FormData, name: string): string[] {
  return text(data, name, 20_000)
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export const ok = (message: string): FormResult => ({ status: "ok", message, at: Date.now() });

/** Done, with something that must not go unread (not a ✓ that fades). */
export const okWithWarning = (message: string, warning: string | null): FormResult =>
  warning ? { status: "ok", message, warning, at: Date.now() } : ok(message);

export function fail(message: string, fields: Record<string, string> = {}): FormResult {
  return { status: "error", message, fields, at: Date.now() };
}

/** Runs a mutation as the session's viewer; service errors become a result, anything else is logged. */
export async function runForm(fn: (viewer: Viewer) => Promise<FormResult>, revalidate?: string): Promise<FormResult> {
  const viewer = await currentViewer();
  if (!viewer) return fail("Your session ended: sign in again.");
  let result: FormResult;
  try {
    result = await fn(viewer);
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string; fields?: Array<{ field: string; message: string }> };
    if (e?.name !== "AppError" || typeof e.code !== "string") {
      (await services()).log.error({ err: { name: e?.name, message: e?.message } }, "project settings action failed");
      return fail("Something went wrong on our side; nothing was changed.");
    }
    const fields: Record<string, string> = {};
    for (const f of e.fields ?? []) {
      // "scrubbing.extraKeys.3" → the form's field "scrubbing.extraKeys"
      const field = f.field.split(".").slice(0, 2).join(".");
      // Several errors of one field (grouping rules: one per bad line) are all shown.
      const seen = fields[field];
      fields[field] = seen && seen !== f.message ? `${seen}; ${f.message}` : f.message;
    }
    // A refusal names what the role lacks (the permission table's words), so it is never silent or vague.
    if (e.code === "forbidden") return fail(`Not changed: ${e.message ?? "your role does not allow this."}`);
    return fail(e.message ?? e.code, fields);
  }
  if (revalidate) revalidatePath(revalidate, "layout");
  return result;
}
