"use server";
import { redirect } from "next/navigation";
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../_lib/server";
import { runForm, text } from "../../[org]/projects/form-result";

/** Creates the organization, then opens it (its onboarding creates the first project). */
// permission: signed-in
export async function createOrgAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  let slug: string | null = null;
  const result = await runForm(async (viewer) => {
    slug = (await (await services()).orgs.create(viewer, { name: text(data, "name", 200), slug: text(data, "slug", 100) })).slug;
    return { status: "ok", message: "Created.", at: Date.now() };
  });
  if (slug) redirect(`/${slug}/projects`);
  return result;
}
