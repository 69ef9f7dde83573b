"use server";

/** Deleting a replay from its page (admins and owners: the permission table's `replay.delete`). */
import { redirect } from "next/navigation";
import { z } from "zod";
import { currentViewer, services } from "../../_lib/server";

export type DeleteReplayState = { status: "idle" } | { status: "error"; code: string; message: string };

const input = z.object({
  org: z.string().min(1).max(100),
  project: z.string().min(1).max(100),
  replayId: z.string().regex(/^[0-9a-f]{32}$/i),
});

// permission: replay.delete
export async function deleteReplay(_prev: DeleteReplayState, data: FormData): Promise<DeleteReplayState> {
  const parsed = input.safeParse({ org: data.get("org"), project: data.get("project"), replayId: data.get("replayId") });
  if (!parsed.success) return { status: "error", code: "validation_failed", message: "This replay cannot be deleted from here." };
  const viewer = await currentViewer();
  if (!viewer) return { status: "error", code: "unauthenticated", message: "Your session ended: sign in again." };
  try {
    await (await services()).replays.remove(viewer, parsed.data.org, parsed.data.project, parsed.data.replayId);
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    if (e?.name !== "AppError" || !e.code) {
      (await services()).log.error({ err: { name: e?.name, message: e?.message } }, "replay delete failed");
      return { status: "error", code: "internal_error", message: "The replay could not be deleted; nothing was changed." };
    }
    return { status: "error", code: e.code, message: e.message ?? e.code };
  }
  redirect(`/${encodeURIComponent(parsed.data.org)}/replays`);
}
