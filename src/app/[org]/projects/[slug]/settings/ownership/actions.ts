"use server";
/**
 * Ownership settings as a Server Action: one service call (src/server/ownership/ownership.ts
 * parses, checks every owner against the organization and authorizes). Line errors come back one
 * per line, labelled "Line N".
 */
import type { FormResult } from "@/ui/settings-form";
import { services } from "../../../../../_lib/server";
import { ok, runForm, text } from "../../../form-result";

// permission: project.write
export async function saveOwnershipAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  const body = {
    raw: text(data, "raw", 200_000),
    fallthrough: data.get("fallthrough") === "on",
    autoAssignment: text(data, "autoAssignment", 100),
  };
  const result = await runForm(async (viewer) => {
    await (await services()).ownership.update(viewer, org, project, body);
    return ok("Saved.");
  }, `/${org}/projects/${project}/settings/ownership`);
  if (result.status !== "error") return result;
  const fields: Record<string, string> = {};
  for (const [field, message] of Object.entries(result.fields)) {
    const line = /^raw\.(\d+)$/.exec(field)?.[1];
    fields[line ? `Line ${line}` : field === "raw" ? "Rules" : field] = message.replace(/^line \d+: /, "");
  }
  return { ...result, fields };
}
