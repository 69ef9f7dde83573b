"use server";
/**
 * Mute / unmute and pause / resume a monitor from its page: plain form posts (no client script),
 * the session's viewer, then the monitor service (which authorizes by role).
 */
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { isAppError } from "@/core/errors";
import { currentViewer, services } from "../../_lib/server";

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
