"use server";
import { MAX_CODEOWNERS_CHARS } from "@/core/ownership/codeowners";
/**
 * Ownership settings as a Server Action: one service call (src/server/ownership/ownership.ts
 * parses, checks every owner against the organization and authorizes). Line errors come back one
 * per line, labelled "Line N".
 */
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../../../_lib/server";
import { fail, ok, runForm, text } from "../../../form-result";

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

const pathOf = (org: string, project: string) => `/${org}/projects/${project}/settings/ownership`;

/** "Line N" labels for a service's `raw.N` field errors. */
function byLine(result: FormResult, label: string): FormResult {
  if (result.status !== "error") return result;
  const fields: Record<string, string> = {};
  for (const [field, message] of Object.entries(result.fields)) {
    const line = /^raw\.(\d+)$/.exec(field)?.[1];
    fields[line ? `Line ${line}` : field === "raw" ? label : field] = message.replace(/^line \d+: /, "");
  }
  return { ...result, fields };
}

/** The pasted CODEOWNERS file (one more character than allowed is read, so an oversized paste is refused by the service, not cut). */
// permission: project.write
export async function saveCodeownersAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  const raw = text(data, "codeowners", MAX_CODEOWNERS_CHARS + 1);
  const result = await runForm(
    async (viewer) => {
      const { file } = await (await services()).codeowners.save(viewer, org, project, { raw });
      const missing = [...file.errors.missing_external_teams, ...file.errors.missing_external_users, ...file.errors.missing_user_emails];
      return ok(
        missing.length
          ? `Saved. ${missing.length} ${missing.length === 1 ? "name has" : "names have"} no team or member yet: map them below.`
          : "Saved.",
      );
    },
    pathOf(org, project),
  );
  return byLine(result, "CODEOWNERS");
}

// permission: project.write
export async function deleteCodeownersAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  return runForm(
    async (viewer) => {
      await (await services()).codeowners.remove(viewer, org, project, Number(text(data, "id", 20)));
      return ok("CODEOWNERS file removed.");
    },
    pathOf(org, project),
  );
}

/** Maps a CODEOWNERS name to `team:<slug>` or `user:<email>`; an empty choice removes the mapping. */
// permission: team.write
export async function mapNameAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  const name = text(data, "externalName", 200);
  const choice = text(data, "target", 400);
  const mappingId = text(data, "mappingId", 20);
  return runForm(
    async (viewer) => {
      // The table first: a refused role is told so, not asked to choose a team.
      await (await services()).authorize(viewer, org, "team.write");
      const s = (await services()).codeowners;
      if (choice === "") {
        if (!mappingId) return fail("Choose a team or a member.");
        await s.unmapName(viewer, org, Number(mappingId));
        return ok(`${name} is unmatched again.`);
      }
      const [kind, value] = [choice.slice(0, choice.indexOf(":")), choice.slice(choice.indexOf(":") + 1)];
      const body = kind === "team" ? { externalName: name, teamSlug: value } : { externalName: name, userEmail: value };
      const v = await s.mapName(viewer, org, body);
      return ok(`${v.externalName} → ${v.target}`);
    },
    pathOf(org, project),
  );
}

/** The project's issue trackers (GitHub / GitLab repository, Jira site and project id); empty fields clear them. */
// permission: project.write
export async function saveTrackersAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  const body = {
    github: text(data, "github", 600),
    gitlab: text(data, "gitlab", 600),
    jiraUrl: text(data, "jiraUrl", 600),
    jiraProjectId: text(data, "jiraProjectId", 40),
  };
  return runForm(
    async (viewer) => {
      await (await services()).trackers.saveSettings(viewer, org, project, body);
      return ok("Saved.");
    },
    pathOf(org, project),
  );
}
