"use server";
/** Teams as Server Actions: each calls one service (admins and owners only; it checks again). */
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../_lib/server";
import { fail, ok, runForm, text } from "../../projects/form-result";

const pathOf = (org: string) => `/${org}/settings/teams`;

// permission: team.write
export async function createTeamAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    const team = await (await services()).teams.create(viewer, org, { name: text(data, "name", 200) });
    return ok(`Team “${team.name}” created.`);
  }, pathOf(org));
}

/** `kind`: member | project; `op`: add | remove; `value`: the user id or project slug. */
// permission: team.write
export async function teamChangeAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const team = text(data, "team", 100);
  const kind = text(data, "kind", 10);
  const on = text(data, "op", 10) === "add";
  const value = text(data, "value", 200);
  if (!value) return fail("Choose one first.");
  return runForm(async (viewer) => {
    const s = await services();
    if (kind === "member") await s.teams.setMember(viewer, org, team, value, on);
    else if (kind === "project") await s.teams.setProject(viewer, org, team, value, on);
    else return fail("Unknown change.");
    return ok(on ? "Added." : "Removed.");
  }, pathOf(org));
}

/** Deletes a team; `confirm` must repeat its slug. Its projects stay (admins still see them). */
// permission: team.write
export async function deleteTeamAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const team = text(data, "team", 100);
  if (text(data, "confirm", 100).trim() !== team) return fail("Type the team's slug to confirm.", { confirm: `type ${team}` });
  return runForm(async (viewer) => {
    await (await services()).teams.remove(viewer, org, team);
    return ok(`Team ${team} deleted.`);
  }, pathOf(org));
}
