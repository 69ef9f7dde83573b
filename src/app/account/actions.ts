"use server";
/** The account page's Server Actions: each calls one account service as the session's viewer. */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { FormResult } from "@/ui/kit/settings-form";
import { currentViewer, services } from "../_lib/server";
import { fail, ok, optionalNumber, runForm, text } from "../[org]/projects/form-result";

// permission: signed-in
export async function renameAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  return runForm(async (viewer) => {
    await (await services()).account.rename(viewer, text(data, "name", 200));
    return ok("Saved.");
  }, "/account");
}

// permission: signed-in
export async function changePasswordAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const h = await headers();
  return runForm(async (viewer) => {
    await (await services()).account.changePassword(viewer, h, { current: text(data, "current", 300), next: text(data, "next", 300) });
    return ok("Password changed; every other session was signed out.");
  }, "/account");
}

// permission: signed-in
export async function signOutEverywhereAction(): Promise<void> {
  const viewer = await currentViewer();
  if (viewer) await (await services()).account.signOutEverywhere(viewer);
  redirect("/login");
}

// permission: signed-in
export async function createPersonalTokenAction(_prev: FormResult, data: FormData): Promise<FormResult & { secret?: string }> {
  let secret: string | undefined;
  // The form's "No Access" choices send an empty value.
  const scopes = data.getAll("scopes").filter((s): s is string => typeof s === "string" && s !== "");
  const result = await runForm(async (viewer) => {
    const days = optionalNumber(data, "expiresInDays");
    const created = await (await services()).tokens.createPersonal(viewer, {
      name: text(data, "name", 200),
      scopes,
      expiresInDays: days as number | null,
    });
    secret = created.secret;
    return ok(`Token “${created.token.name}” created.`);
  }, "/account");
  return secret ? { ...result, secret } : result;
}

// permission: signed-in
export async function revokePersonalTokenAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  return runForm(async (viewer) => {
    await (await services()).tokens.revokePersonal(viewer, Number(text(data, "tokenId", 20)));
    return ok("Revoked.");
  }, "/account");
}

/** Revokes every personal token of the viewer; `confirm` must be ticked (scripts using them stop working). */
// permission: signed-in
export async function revokeAllPersonalTokensAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  if (data.get("confirm") !== "on") return fail("Tick the box to confirm.", { confirm: "tick to confirm" });
  return runForm(async (viewer) => {
    const n = await (await services()).tokens.revokeAllPersonal(viewer);
    return ok(n === 1 ? "1 token revoked." : `${n} tokens revoked.`);
  }, "/account");
}

/** The weekly summary email, on or off for the signed-in member. */
// permission: signed-in
export async function weeklySummaryAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const on = data.get("weeklySummary") === "on";
  return runForm(async (viewer) => {
    await (await services()).weeklySummary.setEnabled(viewer, on);
    return ok(on ? "You will get the weekly summary." : "No more weekly summaries.");
  }, "/account");
}
