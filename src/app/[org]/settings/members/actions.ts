"use server";
/**
 * Members and invitations as Server Actions: each calls one service (which validates and
 * authorizes by role; a forged form from a member still gets `forbidden`) and returns a result.
 */
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../_lib/server";
import { fail, ok, runForm, text } from "../../projects/form-result";

/** A result that may carry an invitation link, shown once. */
export type InviteResult = FormResult & { link?: string };

const pathOf = (org: string) => `/${org}/settings/members`;

// permission: member.invite
export async function inviteAction(_prev: InviteResult, data: FormData): Promise<InviteResult> {
  const org = text(data, "org", 100);
  const send = data.get("send") === "on";
  let link: string | undefined;
  const result = await runForm(async (viewer) => {
    const res = await (await services()).members.invite(viewer, org, {
      email: text(data, "email", 300),
      role: text(data, "role", 20),
      send,
    });
    link = res.link;
    return ok(
      res.emailed ? `Invitation emailed to ${res.invitation.email}.` : `Invitation for ${res.invitation.email} created: copy the link.`,
    );
  }, pathOf(org));
  return link ? { ...result, link } : result;
}

/** `op`: resend (new link, mailed when SMTP is configured) | revoke */
// permission: member.invite
export async function invitationAction(_prev: InviteResult, data: FormData): Promise<InviteResult> {
  const org = text(data, "org", 100);
  const id = Number(text(data, "invitationId", 20));
  const op = text(data, "op", 10);
  let link: string | undefined;
  const result = await runForm(async (viewer) => {
    const s = await services();
    if (op === "revoke") {
      await s.members.revoke(viewer, org, id);
      return ok("Invitation revoked.");
    }
    if (op !== "resend") return fail("Unknown action.");
    const res = await s.members.resend(viewer, org, id, { send: data.get("send") === "on" });
    link = res.link;
    return ok(res.emailed ? "Sent again with a new link." : "New link created: the old one no longer works.");
  }, pathOf(org));
  return link ? { ...result, link } : result;
}

// permission: member.admin
export async function changeRoleAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  return runForm(async (viewer) => {
    await (await services()).members.changeRole(viewer, org, text(data, "userId", 100), text(data, "role", 20));
    return ok("Role changed.");
  }, pathOf(org));
}

/** Removes a member; `confirm` must repeat their email. */
// permission: member.admin
export async function removeMemberAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const org = text(data, "org", 100);
  const userId = text(data, "userId", 100);
  const confirm = text(data, "confirm", 300).trim().toLowerCase();
  return runForm(async (viewer) => {
    const s = await services();
    // Leaving is every member's right; removing someone else is an owner's.
    await s.authorize(viewer, org, userId === viewer.userId ? "member.leave" : "member.admin");
    const page = await s.members.page(viewer, org);
    const member = page.members.find((m) => m.userId === userId);
    if (!member) return fail("Choose a member to remove.", { userId: "choose a member" });
    if (confirm !== member.email.toLowerCase()) return fail("Type the member's email to confirm.", { confirm: `type ${member.email}` });
    await s.members.remove(viewer, org, userId);
    return ok(`${member.email} was removed; their sessions ended.`);
  }, pathOf(org));
}
