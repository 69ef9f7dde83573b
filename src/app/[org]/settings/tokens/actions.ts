"use server";
/** Organization tokens as Server Actions (admins and owners; the service checks again). */
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../_lib/server";
import { ok, optionalNumber, runForm, text } from "../../projects/form-result";

// permission: orgtoken.manage
export async function createOrgTokenAction(_prev: FormResult, data: FormData): Promise<FormResult & { secret?: string }> {
  const org = text(data, "org", 100);
  let secret: string | undefined;
  const scopes = data.getAll("scopes").filter((s): s is string => typeof s === "string");
  const result = await runForm(async (viewer) => {
    const days = optionalNumber(data, "expiresInDays");
    const created = await (await services()).tokens.createOrg(viewer, org, {
      name: text(data, "name", 200),
      scopes,
      expiresInDays: days as number | null,
    });
    secret = created.secret;
    return ok(`Token “${created.token.name}” created: org:ci, for releases, deploys and source maps.`);
  }, `/${org}/settings/tokens`);
  return secret ? { ...result, secret } : result;
}

// permission: orgtoken.manage
export async function revokeOrgTokenAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    await (await services()).tokens.revokeOrg(viewer, org, Number(text(data, "tokenId", 20)));
    return ok("Revoked.");
  }, `/${org}/settings/tokens`);
}
