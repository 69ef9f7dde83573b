"use server";
/** Single sign-on settings as Server Actions (owners; the service checks again). */
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../_lib/server";
import { ok, runForm, text } from "../../projects/form-result";

// permission: sso.write
export async function saveSsoAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    const saved = await (await services()).sso.configure(viewer, org, {
      issuer: text(data, "issuer", 500),
      clientId: text(data, "clientId", 500),
      clientSecret: text(data, "clientSecret", 2000),
      defaultRole: text(data, "defaultRole", 20),
      required: data.get("required") === "on",
    });
    const out =
      saved.signedOut > 0 ? ` SSO is now required: ${saved.signedOut} member${saved.signedOut === 1 ? " was" : "s were"} signed out.` : "";
    return ok(`Saved. The provider answered its discovery document.${out}`);
  }, `/${org}/settings/sso`);
}

// permission: sso.write
export async function removeSsoAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    await (await services()).sso.remove(viewer, org);
    return ok("Single sign-on removed; members sign in with their passwords.");
  }, `/${org}/settings/sso`);
}
