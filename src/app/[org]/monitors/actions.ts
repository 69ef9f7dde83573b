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
import type { FormResult } from "@/ui/kit/settings-form";
import { currentViewer, services } from "../../_lib/server";
import { fail, ok, optionalNumber, runForm, text } from "../projects/form-result";

const Form = z.object({
  org: z.string().min(1).max(100),
  slug: z.string().min(1).max(100),
  change: z.enum(["mute", "unmute", "pause", "resume"]),
});

// permission: monitor.write
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
    if (!isAppError(err)) throw err;
    // Refused (role, another org, unknown monitor): the page says so instead of looking unchanged.
    redirect(`/${encodeURIComponent(org)}/monitors/${encodeURIComponent(slug)}?refused=${encodeURIComponent(err.code)}`);
  }
  revalidatePath(`/${org}/monitors/${slug}`);
}

/** Creates an uptime check from the form; on success the browser goes to its page. */
// permission: monitor.write
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

/** The cron monitor form's fields as the monitor service takes them (Sentry's `monitor_config`). */
function monitorInput(data: FormData) {
  const type = text(data, "scheduleType", 10) === "interval" ? "interval" : "crontab";
  return {
    name: text(data, "name", 200),
    config: {
      schedule:
        type === "crontab"
          ? { type, value: text(data, "crontab", 200) }
          : { type, value: optionalNumber(data, "intervalValue"), unit: text(data, "intervalUnit", 10) },
      timezone: text(data, "timezone", 100).trim(),
      checkin_margin: optionalNumber(data, "checkinMargin"),
      max_runtime: optionalNumber(data, "maxRuntime"),
      failure_issue_threshold: optionalNumber(data, "failureIssueThreshold"),
      recovery_threshold: optionalNumber(data, "recoveryThreshold"),
    },
  };
}

/** The service names a bad config by its reason; the form shows it at the field it concerns. */
function placeConfigError(result: FormResult): FormResult {
  if (result.status !== "error" || !result.fields.config) return result;
  const { config, ...fields } = result.fields;
  if (result.message.includes("invalid_timezone")) fields.timezone = "Not a timezone (e.g. UTC, Europe/Paris).";
  else if (result.message.includes("invalid_schedule")) fields.schedule = "Not a valid schedule: a five-field crontab or a whole interval.";
  else fields.schedule = config;
  return { ...result, message: "Check the highlighted fields.", fields };
}

/** Creates a cron monitor from the monitors page; on success the browser goes to its page. */
// permission: monitor.write
export async function createCronMonitorAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  let slug = "";
  const result = await runForm(async (viewer) => {
    const m = await (await services()).monitors.create(viewer, org, {
      ...monitorInput(data),
      project: text(data, "project", 100),
      slug: text(data, "newSlug", 100).trim() || undefined,
    });
    slug = m.slug;
    return ok(`Monitor “${m.name}” created.`);
  }, `/${org}/monitors`);
  if (result.status !== "ok") return placeConfigError(result);
  redirect(`/${encodeURIComponent(org)}/monitors/${encodeURIComponent(slug)}`);
}

/** Saves a cron monitor's name and configuration from its page. */
// permission: monitor.write
export async function updateCronMonitorAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const slug = text(data, "slug", 100);
  const result = await runForm(async (viewer) => {
    await (await services()).monitors.update(viewer, org, slug, monitorInput(data));
    return ok("Saved.");
  }, `/${org}/monitors/${slug}`);
  return placeConfigError(result);
}
