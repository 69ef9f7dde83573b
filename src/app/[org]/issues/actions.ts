"use server";
/**
 * Triage mutations as Server Actions: zod-validated input, the session's viewer, then the
 * lifecycle services (which authorize by role). They return a result instead of throwing, so the
 * client can roll back an optimistic update and say what failed.
 */
import { z } from "zod";
import type { IssueMuteState } from "@/server/alerts/alerts";
import type { IssueUpdate } from "@/server/types";
import type { ActionResult } from "@/ui/issues/triage/actions";
import { currentViewer, services } from "../../_lib/server";

const org = z.string().min(1).max(100);
const ids = z.array(z.number().int().positive()).min(1).max(1000);
const minutes = z.number().int().min(1).max(527_040);
const update = z
  .object({
    status: z.enum(["resolved", "unresolved", "ignored", "resolvedInNextRelease"]).optional(),
    statusDetails: z
      .object({
        inRelease: z.string().trim().min(1).max(250).optional(),
        inNextRelease: z.boolean().optional(),
        ignoreDuration: minutes.optional(),
        ignoreCount: z.number().int().min(1).max(1_000_000_000).optional(),
        ignoreWindow: minutes.optional(),
        ignoreUserCount: z.number().int().min(1).max(1_000_000_000).optional(),
        ignoreUserWindow: minutes.optional(),
      })
      .strict()
      .optional(),
    assignedTo: z.string().max(320).nullable().optional(),
    substatus: z.enum(["new", "ongoing", "regressed"]).optional(),
  })
  .strict();

async function run<T>(fn: (viewer: NonNullable<Awaited<ReturnType<typeof currentViewer>>>) => Promise<T>): Promise<ActionResult<T>> {
  try {
    const viewer = await currentViewer();
    if (!viewer) return { ok: false, code: "unauthenticated", message: "Your session ended: sign in again." };
    return { ok: true, value: await fn(viewer) };
  } catch (err) {
    if (err instanceof z.ZodError) return { ok: false, code: "validation_failed", message: err.issues[0]?.message ?? "Invalid input." };
    const e = err as { name?: string; code?: string; message?: string };
    if (e?.name === "AppError" && typeof e.code === "string") return { ok: false, code: e.code, message: e.message ?? e.code };
    (await services()).log.error({ err: { name: e?.name, message: e?.message } }, "issue action failed");
    return { ok: false, code: "internal_error", message: "Something went wrong on our side; nothing was changed." };
  }
}

/** Resolve / ignore / unresolve / assign one or many issues (Sentry's update body). */
// permission: issue.update
export async function updateIssues(orgSlug: string, issueIds: number[], body: IssueUpdate): Promise<ActionResult<{ ids: number[] }>> {
  return run(async (viewer) => {
    const input = update.parse(body) as IssueUpdate;
    const s = await services();
    const list = ids.parse(issueIds);
    return list.length === 1
      ? { ids: [(await s.issueActions.update(viewer, org.parse(orgSlug), list[0] as number, input)).id] }
      : s.issueActions.bulkUpdate(viewer, org.parse(orgSlug), list, input);
  });
}

/** Merges the selected issues into `primaryId` (the one the dialog named). */
// permission: issue.update
export async function mergeIssues(
  orgSlug: string,
  issueIds: number[],
  primaryId?: number,
): Promise<ActionResult<{ primaryId: number; mergedIds: number[] }>> {
  return run(async (viewer) =>
    (await services()).issueActions.merge(viewer, org.parse(orgSlug), ids.min(2).parse(issueIds), {
      primaryId: primaryId === undefined ? undefined : z.number().int().positive().parse(primaryId),
    }),
  );
}

// permission: issue.delete
export async function deleteIssues(orgSlug: string, issueIds: number[]): Promise<ActionResult<{ deletedIds: number[] }>> {
  return run(async (viewer) => (await services()).issueActions.delete(viewer, org.parse(orgSlug), ids.parse(issueIds)));
}

/** Splits one grouping hash (with its stored and future events) off into a new issue. */
// permission: issue.update
export async function unmergeHash(
  orgSlug: string,
  issueId: number,
  hash: string,
): Promise<ActionResult<{ newIssueId: number; movedEvents: number }>> {
  return run(async (viewer) =>
    (await services()).issueUnmerge.unmerge(
      viewer,
      org.parse(orgSlug),
      z.number().int().positive().parse(issueId),
      z.string().min(1).max(200).parse(hash),
    ),
  );
}

// permission: issue.comment
export async function commentOnIssue(orgSlug: string, issueId: number, text: string): Promise<ActionResult<{ id: number }>> {
  return run(async (viewer) => {
    const body = z.string().trim().min(1, "Write something first.").max(10_000).parse(text);
    const item = await (await services()).issueActions.comment(
      viewer,
      org.parse(orgSlug),
      z.number().int().positive().parse(issueId),
      body,
    );
    return { id: item.id };
  });
}

/** Merges the issues named by short ids (`WEB-12, WEB-15`) or numeric ids into this one (it survives, as the dialog says). */
// permission: issue.update
export async function mergeInto(
  orgSlug: string,
  issueId: number,
  others: string,
): Promise<ActionResult<{ primaryId: number; mergedIds: number[] }>> {
  return run(async (viewer) => {
    const s = await services();
    const slug = org.parse(orgSlug);
    const tokens = z
      .string()
      .max(2000)
      .parse(others)
      .split(/[\s,]+/)
      .filter(Boolean)
      .slice(0, 100);
    if (tokens.length === 0)
      throw new z.ZodError([{ code: "custom", path: ["others"], message: "Name at least one issue, e.g. WEB-12.", input: others }]);
    const list = [z.number().int().positive().parse(issueId)];
    for (const t of tokens) {
      if (/^\d{1,15}$/.test(t)) list.push(Number(t));
      else {
        const found = await s.issueStream.openPasted(viewer, slug, t);
        if (!found) throw Object.assign(new Error(`No issue ${t} in this organization.`), { name: "AppError", code: "not_found" });
        list.push(found.issueId);
      }
    }
    return s.issueActions.merge(viewer, slug, list, { primaryId: list[0] });
  });
}

/** Mutes the issue's alerts for `minutes` from now, or until unmuted with null (members and up; the service refuses viewers). */
// permission: alert.mute
export async function muteIssueAlerts(orgSlug: string, issueId: number, minutes: number | null): Promise<ActionResult<IssueMuteState>> {
  return run(async (viewer) => {
    const span =
      minutes === null
        ? null
        : z
            .number()
            .int()
            .min(1)
            .max(366 * 24 * 60)
            .parse(minutes);
    return (await services()).alerts.muteIssue(
      viewer,
      org.parse(orgSlug),
      z.number().int().positive().parse(issueId),
      span === null ? null : Date.now() + span * 60_000,
    );
  });
}

// permission: alert.mute
export async function unmuteIssueAlerts(orgSlug: string, issueId: number): Promise<ActionResult<IssueMuteState>> {
  return run(async (viewer) => {
    await (await services()).alerts.unmuteIssue(viewer, org.parse(orgSlug), z.number().int().positive().parse(issueId));
    return { muted: false, until: null };
  });
}

/** Links an existing tracker issue (an http(s) URL) to the issue (members and up; the service validates and refuses viewers). */
// permission: issue.update
export async function linkTrackerIssue(
  orgSlug: string,
  issueId: number,
  url: string,
): Promise<ActionResult<{ url: string; label: string }>> {
  return run(async (viewer) =>
    (await services()).trackers.link(
      viewer,
      org.parse(orgSlug),
      z.number().int().positive().parse(issueId),
      z.string().max(4000).parse(url),
    ),
  );
}

// permission: issue.update
export async function unlinkTrackerIssue(orgSlug: string, issueId: number): Promise<ActionResult<null>> {
  return run(async (viewer) => {
    await (await services()).trackers.unlink(viewer, org.parse(orgSlug), z.number().int().positive().parse(issueId));
    return null;
  });
}
