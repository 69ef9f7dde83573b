"use server";
/**
 * Project settings mutations as Server Actions (each calls one service, which validates with zod
 * and authorizes by role): settings sections, and DSN keys — create, label, enable, and the
 * destructive disable / rotate, which also require the key's label typed as confirmation.
 */
import type { GroupingPreview } from "@/core/grouping/preview";
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../../_lib/server";
import { fail, lines, ok, optionalNumber, runForm, text } from "../../form-result";

function target(data: FormData) {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  return { org, project, path: `/${org}/projects/${project}/settings` };
}

/** One settings section (`section`: retention | rateLimit | grouping | scrubbing | replays). */
// permission: project.write
export async function updateSettingsAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const section = text(data, "section", 20);
  let patch: Record<string, unknown>;
  switch (section) {
    case "retention":
      patch = { retentionDays: optionalNumber(data, "retentionDays"), eventCap: optionalNumber(data, "eventCap") };
      break;
    case "rateLimit": {
      const n = optionalNumber(data, "eventsPerMinute");
      patch = { rateLimit: n === null ? null : { eventsPerMinute: n } };
      break;
    }
    case "grouping":
      patch = { groupingVersion: text(data, "groupingVersion", 20) };
      break;
    case "replays":
      patch = { replays: { enabled: data.get("replaysEnabled") === "on" } };
      break;
    case "groupingRules":
      patch = {
        fingerprintingRules: text(data, "fingerprintingRules", 40_000),
        groupingEnhancements: text(data, "groupingEnhancements", 40_000),
      };
      break;
    case "scrubbing":
      patch = {
        scrubbing: {
          enabled: data.get("enabled") === "on",
          scrubIp: data.get("scrubIp") === "on",
          extraKeys: lines(data, "extraKeys"),
          safeKeys: lines(data, "safeKeys"),
        },
      };
      break;
    default:
      return fail("Unknown settings section.");
  }
  return runForm(async (viewer) => {
    await (await services()).projects.updateSettings(viewer, org, project, patch);
    return ok("Saved.");
  }, path);
}

export type PreviewResult = { ok: true; preview: GroupingPreview } | { ok: false; message: string; fields: Record<string, string> };

/** Regroups the project's latest events with the draft rules in the form (nothing is saved). */
// permission: project.write
export async function previewGroupingAction(
  org: string,
  project: string,
  draft: { fingerprintingRules: string; groupingEnhancements: string },
): Promise<PreviewResult> {
  let preview: GroupingPreview | undefined;
  const result = await runForm(async (viewer) => {
    preview = await (await services()).projects.previewGrouping(viewer, org, project, draft);
    return ok("Preview ready.");
  });
  if (result.status === "ok" && preview) return { ok: true, preview };
  return {
    ok: false,
    message: result.status === "error" ? result.message : "Preview failed.",
    fields: result.status === "error" ? result.fields : {},
  };
}

// permission: key.write
export async function createKeyAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  return runForm(async (viewer) => {
    const key = await (await services()).keys.create(viewer, org, project, { label: text(data, "label", 200) });
    return ok(`Key “${key.label}” created.`);
  }, path);
}

/** Renames a key (`label`) or re-enables it (`active=true`): neither needs confirmation. */
// permission: key.write
export async function updateKeyAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const keyId = Number(text(data, "keyId", 20));
  const patch: { label?: string; active?: boolean } = {};
  if (data.has("label")) patch.label = text(data, "label", 200);
  if (text(data, "active", 5) === "true") patch.active = true;
  return runForm(async (viewer) => {
    const key = await (await services()).keys.update(viewer, org, project, keyId, patch);
    return ok(patch.active ? `Key “${key.label}” enabled.` : "Saved.");
  }, path);
}

/** Disable or rotate a key; `confirm` must repeat the key's label. */
// permission: key.write
export async function dangerKeyAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const keyId = Number(text(data, "keyId", 20));
  const op = text(data, "op", 10);
  const confirm = text(data, "confirm", 200).trim();
  if (op !== "disable" && op !== "rotate") return fail("Choose what to do with the key.", { op: "choose disable or rotate" });
  return runForm(async (viewer) => {
    const s = await services();
    await s.authorize(viewer, org, "key.write");
    const key = (await s.keys.list(viewer, org, project)).find((k) => k.id === keyId);
    if (!key) return fail("Choose a key.", { keyId: "choose one of the project's keys" });
    if (confirm !== key.label) return fail("Type the key's label to confirm.", { confirm: `type “${key.label}” exactly` });
    if (op === "disable") {
      await s.keys.update(viewer, org, project, keyId, { active: false });
      return ok(`Key “${key.label}” disabled: its DSN is refused from now on.`);
    }
    await s.keys.rotate(viewer, org, project, keyId);
    return ok(`Key “${key.label}” rotated: the new DSN is listed above; the old one is disabled.`);
  }, path);
}
