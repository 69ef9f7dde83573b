"use server";
/** Single sign-on settings as Server Actions (owners; the service checks again). */
import { redirect } from "next/navigation";
import { countOf } from "@/ui/kit/format";
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

// permission: sso.write
export async function saveSamlAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    const saved = await (await services()).saml.configure(viewer, org, {
      source: text(data, "source", 10) || "manual",
      metadataUrl: text(data, "metadataUrl", 2000),
      metadataXml: text(data, "metadataXml", 200_000),
      idpEntityId: text(data, "idpEntityId", 500),
      idpSsoUrl: text(data, "idpSsoUrl", 2000),
      idpCerts: text(data, "idpCerts", 40_000),
      attrEmail: text(data, "attrEmail", 300),
      attrName: text(data, "attrName", 300),
      attrGroups: text(data, "attrGroups", 300),
      defaultRole: text(data, "defaultRole", 20),
      required: data.get("required") === "on",
    });
    const out =
      saved.signedOut > 0 ? ` SSO is now required: ${saved.signedOut} member${saved.signedOut === 1 ? " was" : "s were"} signed out.` : "";
    return ok(`Saved: ${saved.idp.entityId} with ${countOf(saved.idp.certificates.length, "certificate")}.${out}`);
  }, `/${org}/settings/sso`);
}

// permission: sso.write
export async function removeSamlAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    await (await services()).saml.remove(viewer, org);
    return ok("SAML removed; members sign in with their passwords.");
  }, `/${org}/settings/sso`);
}

// permission: sso.write
export async function testSamlAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  let location: string | undefined;
  const result = await runForm(async (viewer) => {
    location = await (await services()).saml.beginTest(viewer, org);
    return ok("Redirecting to the identity provider…");
  });
  // Outside runForm: Next's redirect works by throwing, which a catch must not swallow.
  if (location) redirect(location);
  return result;
}

// permission: sso.write
export async function rotateScimTokenAction(_prev: FormResult, data: FormData): Promise<FormResult & { secret?: string }> {
  const org = text(data, "org", 100);
  let secret: string | undefined;
  const result = await runForm(async (viewer) => {
    secret = (await (await services()).scim.token.rotate(viewer, org)).token;
    return ok("New SCIM token made; the previous one no longer works. Copy it now: it is not shown again.");
  }, `/${org}/settings/sso`);
  return secret ? { ...result, secret } : result;
}

// permission: sso.write
export async function revokeScimTokenAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    await (await services()).scim.token.revoke(viewer, org);
    return ok("SCIM token revoked: provisioning stops until a new one is entered at the identity provider.");
  }, `/${org}/settings/sso`);
}

// permission: sso.write
export async function saveGroupMappingAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    const group = text(data, "group", 200);
    await (await services()).groupMappings.save(viewer, org, { group, team: text(data, "team", 100), role: text(data, "role", 20) });
    return ok(`Mapping of “${group}” saved and applied to its members.`);
  }, `/${org}/settings/sso`);
}

// permission: sso.write
export async function removeGroupMappingAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    await (await services()).groupMappings.remove(viewer, org, Number(text(data, "groupId", 20)));
    return ok("Mapping removed; its managed team memberships ended.");
  }, `/${org}/settings/sso`);
}
