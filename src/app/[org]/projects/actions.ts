"use server";
/**
 * Creating a project (projects list and onboarding): the service validates and authorizes; on
 * success the browser goes on to the project's setup (or the onboarding's next step).
 */
import { redirect } from "next/navigation";
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../_lib/server";
import { ok, runForm, text } from "./form-result";

// permission: project.write
export async function createProjectAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const then = text(data, "then", 20);
  let slug = "";
  const result = await runForm(async (viewer) => {
    const p = await (await services()).projects.create(viewer, org, {
      name: text(data, "name", 200),
      platform: text(data, "platform", 64),
      // the form lists the org's teams only when it has some: then the choice is passed, even if empty
      teams: data.get("teamsChosen") ? data.getAll("teams").map((t) => String(t).slice(0, 100)) : undefined,
    });
    slug = p.slug;
    return ok(`Project “${p.name}” created.`);
  }, `/${org}`);
  if (result.status !== "ok") return result;
  // redirect() throws: it must run outside runForm's error handling.
  const o = encodeURIComponent(org);
  const s = encodeURIComponent(slug);
  redirect(then === "onboarding" ? `/${o}/onboarding?project=${s}` : `/${o}/projects/${s}/settings/setup?created=1`);
}
