"use server";
/**
 * Mute / unmute and pause / resume a monitor from its page: plain form posts (no client script),
 * the session's viewer, then the monitor service (which authorizes by role). Creating an uptime
 * check from the monitors page: the uptime service validates and authorizes (owners and admins).
 */
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { isAppError } from "@/core/errors";
import { parseHeaderLines } from "@/core/monitors/uptime";
import type { FormResult } from "@/ui/settings-form";
import { currentViewer, services } from "../../_lib/server";
import { fail, ok, optionalNumber, runForm, text } from "../projects/form-result";

const Form = z.object({
  org: z.string().min(1).max(100),
  slug: z.string().min(1).max(100),
  change: z.enum(["mute", "unmute", "pause", "resume"]),
});

export async function changeMonitor(form: FormData): Promise<void> {
  const parsed = Form.safeParse(Object.fromEntries(form));
  if (!parsed.success) return;
  const viewer = await currentViewer();
  if (!viewer) return;
  const { org, slug, change } = parsed.data;
  const patch =
    change === "mute" || change === "unmute" ? { isMuted: change === "mute" } : { status: change === "pause" ? "disabled" : "active" };
  try {
    await (await services()).monitors.update(viewer, org, slug, patch);
  } catch (err) {
    // Refused (role, another org, unknown monitor): the page simply shows the unchanged monitor.
    if (isAppError(err)) return;
    throw err;
  }
  revalidatePath(`/${org}/monitors/${slug}`);
}

/** Creates an uptime check from the form; on success the browser goes to its page. */
export async function createUptimeAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const headers = parseHeaderLines(text(data, "headers", 20_000));
  if (!headers.ok) return fail(`Headers: ${headers.message}`, { "config.headers": headers.message });
  let id = 0;
  const result = await runForm(async (viewer) => {
    const m = await (await services()).uptime.create(viewer, org, {
      project: text(data, "project", 100),
      name: text(data, "name", 200),
      config: {
        url: text(data, "url", 2000).trim(),
        method: text(data, "method", 10),
        intervalSeconds: optionalNumber(data, "intervalSeconds"),
        timeoutMs: optionalNumber(data, "timeoutMs"),
        statusMin: optionalNumber(data, "statusMin"),
        statusMax: optionalNumber(data, "statusMax"),
        keyword: text(data, "keyword", 500),
        headers: headers.value,
        failureThreshold: optionalNumber(data, "failureThreshold"),
        recoveryThreshold: optionalNumber(data, "recoveryThreshold"),
      },
    });
    id = m.id;
    return ok(`Uptime check “${m.name}” created.`);
  }, `/${org}/monitors`);
  if (result.status !== "ok") return result;
  // redirect() throws: it must run outside runForm's error handling.
  redirect(`/${encodeURIComponent(org)}/monitors/uptime/${id}`);
}
