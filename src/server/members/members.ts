/**
 * Members and invitations of an organization (SPEC §6): everyone reads the member list; admins
 * invite members, admins and viewers; only owners invite owners, change roles and remove others;
 * anyone may leave; the last owner can neither leave nor be demoted. Invitation secrets are shown
 * once (in the link or the mail) and kept only as a sha256 hash; they are single use and expire.
 */
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { AppError } from "../../core/errors";
import { emailSchema, nameSchema, passwordSchema, validate } from "../../core/validation";
import type { Mailer } from "../../net/mailer";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { idpManagedMembers, isIdpManagedMember } from "../../storage/identity/idp-groups";
import {
  claimInvitation,
  findInvitation,
  findInvitationByHash,
  findOrgById,
  type InvitationRow,
  insertInvitation,
  listInvitations,
  renewInvitation,
  revokeInvitation,
  setInvitationUser,
} from "../../storage/members/invitations";
import {
  countOwners,
  deleteMember,
  findMemberRole,
  invitersOfMembers,
  listMembers,
  setMemberRole,
  ssoLinkedMembers,
} from "../../storage/members/members";
import { joinInvitedTeams, listTeams } from "../../storage/members/teams";
import { deletePersonalTokens } from "../../storage/members/token-admin";
import { findUserProfile } from "../../storage/members/tokens";
import { upsertMember } from "../../storage/orgs/orgs";
import { credentialOf, requirePermission } from "../access/access";
import { type Action, permits, scopesForRole } from "../access/permissions";
import { type Auth, createUserWithPassword, findUserByEmail, revokeUserSessions } from "../auth/auth";
import type { LoginThrottle } from "../auth/login-throttle";
import type { AuditLogServices } from "../identity/audit-log";
import type { OrgSummary, Role, Viewer } from "../types";

export const ROLES = ["viewer", "member", "admin", "owner"] as const;
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const DAY = 24 * 3600 * 1000;

export type InvitationState = "pending" | "accepted" | "expired" | "revoked";

export interface MemberInfo {
  userId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: number;
  /** provisioned by SCIM or given its role by an identity-provider group: changed there, not here */
  managed?: boolean;
}

export interface InvitationInfo {
  id: number;
  email: string;
  role: Role;
  state: InvitationState;
  createdAt: number;
  expiresAt: number;
  /** the inviting user's id */
  invitedBy: string;
}

export interface MembersPage {
  org: OrgSummary;
  members: MemberInfo[];
  /** pending first, then the recent history (accepted, expired, revoked) */
  invitations: InvitationInfo[];
  /** what the viewer may do here (the page shows only these controls; the service checks again) */
  can: { invite: boolean; inviteOwners: boolean; manage: boolean };
  /** whether invitations can be emailed (SMTP configured) */
  mail: boolean;
}

export interface InviteResult {
  invitation: InvitationInfo;
  /** the one-time link (shown once: copy it or rely on the mail) */
  link: string;
  emailed: boolean;
}

/** What the public `/invite/[token]` page shows. */
export interface InvitationPreview {
  orgSlug: string;
  orgName: string;
  email: string;
  role: Role;
  /** an account with this email exists: it signs in and joins instead of creating one */
  existingUser: boolean;
}

export interface MemberServices {
  /** The settings page (admins and owners). */
  page(viewer: Viewer, orgSlug: string): Promise<MembersPage>;
  /** Everyone in the org (any member; `member:read` for tokens) — the REST list. */
  list(viewer: Viewer, orgSlug: string): Promise<MemberInfo[]>;
  /** Pending invitations for the REST list (Sentry lists them with `pending: true`): admins and owners; [] for others. */
  pendingInvitations(viewer: Viewer, orgSlug: string): Promise<InvitationInfo[]>;
  invite(viewer: Viewer, orgSlug: string, input: { email: string; role: string; send?: boolean }): Promise<InviteResult>;
  resend(viewer: Viewer, orgSlug: string, invitationId: number, opts?: { send?: boolean }): Promise<InviteResult>;
  revoke(viewer: Viewer, orgSlug: string, invitationId: number): Promise<void>;
  changeRole(viewer: Viewer, orgSlug: string, userId: string, role: string): Promise<void>;
  /** Removes a member (owners), or the viewer themselves (leave); their sessions end. */
  remove(viewer: Viewer, orgSlug: string, userId: string): Promise<void>;
  /** What Sentry's member serializer adds, for the whole org at once (a few queries, never one per member). */
  sentryFacts(viewer: Viewer, orgSlug: string): Promise<MemberSentryFacts>;
  /** Public: the invitation behind a link, or `invitation_invalid`. */
  /** `ip`: the client address; wrong links are counted and throttled per address like sign-in failures. */
  preview(token: string, ip?: string): Promise<InvitationPreview>;
  /**
   * Public: accepts the invitation. Signed in (`viewer`): that account joins. Otherwise a new
   * account is made with the invitation's email and the given name and password; an existing
   * account must sign in first (`unauthenticated`).
   */
  accept(
    token: string,
    viewer: Viewer | null,
    input?: { name?: string; password?: string },
    ip?: string,
  ): Promise<{ orgSlug: string; email: string }>;
}

export interface MemberSentryFacts {
  /** member user id → the slugs of their teams */
  teams: Map<string, string[]>;
  /** member user id → who invited them (joined by invitation only) */
  inviters: Map<string, string>;
  /** members with a single-sign-on identity in this org */
  ssoLinked: Set<string>;
  owners: number;
  /** the roles, least first, with their scopes and whether the caller may give them */
  roles: Array<{ id: Role; scopes: string[]; allowed: boolean }>;
}

export interface MemberDeps {
  db: Db;
  auth: Auth;
  publicUrl: string;
  invitationDays: number;
  mailer: Mailer | null;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  /** Counts wrong invitation links per client address (the sign-in throttle's rule). */
  throttle?: LoginThrottle;
  /** Role changes and removals go to the organization's audit log. */
  audit?: AuditLogServices;
}

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

export function createMemberServices(deps: MemberDeps): MemberServices {
  const { db, auth, now } = deps;

  function stateOf(i: InvitationRow): InvitationState {
    if (i.acceptedAt !== null) return "accepted";
    if (i.revokedAt !== null) return "revoked";
    return i.expiresAt <= now() ? "expired" : "pending";
  }

  const info = (i: InvitationRow): InvitationInfo => ({
    id: i.id,
    email: i.email,
    role: i.role,
    state: stateOf(i),
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
    invitedBy: i.invitedBy,
  });

  async function authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary> {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, action);
    return org;
  }

  function parseRole(role: string): Role {
    return validate(z.enum(ROLES), role);
  }

  async function deliver(org: OrgSummary, email: string, role: Role, secret: string, send: boolean): Promise<boolean> {
    if (!send || !deps.mailer) return false;
    try {
      await deps.mailer.send({
        to: email,
        subject: `You are invited to ${org.name} on Errata`,
        text: [
          `You have been invited to join ${org.name} on Errata as ${role === "admin" || role === "owner" ? "an" : "a"} ${role}.`,
          "",
          `Accept the invitation: ${linkOf(secret)}`,
          "",
          `The link works once and expires in ${deps.invitationDays} days.`,
        ].join("\n"),
      });
      return true;
    } catch {
      // The invitation stands; the page offers the link instead (the error detail stays out of the UI).
      throw new AppError("mail_failed");
    }
  }

  const linkOf = (secret: string) => `${deps.publicUrl}/invite/${secret}`;

  async function findPending(token: string): Promise<InvitationRow | undefined> {
    const inv = /^[A-Za-z0-9_-]{20,100}$/.test(token) ? await findInvitationByHash(db, hashSecret(token)) : undefined;
    return inv && stateOf(inv) === "pending" ? inv : undefined;
  }

  /** The pending invitation; wrong links count against the client address like failed sign-ins. */
  async function openInvitation(token: string, ip?: string): Promise<InvitationRow> {
    if (!deps.throttle || ip === undefined) {
      const inv = await findPending(token);
      if (!inv) throw new AppError("invitation_invalid");
      return inv;
    }
    const started = await deps.throttle.beginAddress("invitation", ip);
    if (!started.allowed) {
      const minutes = Math.max(1, Math.ceil(started.retryAfterSeconds / 60));
      throw new AppError(
        "rate_limited",
        `Too many wrong invitation links from this address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      );
    }
    const inv = await findPending(token);
    await deps.throttle.settle(started.attempt, inv ? "not_counted" : "failed");
    if (!inv) throw new AppError("invitation_invalid");
    return inv;
  }

  return {
    async page(viewer, orgSlug) {
      // Organization settings are for admins and owners (a member or viewer gets `forbidden`).
      const org = await authorize(viewer, orgSlug, "member.invite");
      const invitations = (await listInvitations(db, org.id)).map(info);
      // Pending first; history of the last 30 days after it.
      const recent = invitations.filter((i) => i.state === "pending" || i.createdAt > now() - 30 * DAY);
      recent.sort((a, b) => Number(b.state === "pending") - Number(a.state === "pending") || b.createdAt - a.createdAt);
      return {
        org,
        members: await withManaged(org.id, await listMembers(db, org.id)),
        invitations: recent,
        can: {
          invite: true,
          inviteOwners: permits(org.role, credentialOf(viewer), "member.admin"),
          manage: permits(org.role, credentialOf(viewer), "member.admin"),
        },
        mail: deps.mailer !== null,
      };
    },

    async list(viewer, orgSlug) {
      const org = await authorize(viewer, orgSlug, "member.read");
      return withManaged(org.id, await listMembers(db, org.id));
    },

    async sentryFacts(viewer, orgSlug) {
      const org = await authorize(viewer, orgSlug, "member.read");
      const [teams, inviters, ssoLinked, owners] = await Promise.all([
        listTeams(db, org.id),
        invitersOfMembers(db, org.id),
        ssoLinkedMembers(db, org.id),
        countOwners(db, org.id),
      ]);
      const byUser = new Map<string, string[]>();
      for (const t of teams) for (const u of t.memberIds) byUser.set(u, [...(byUser.get(u) ?? []), t.slug]);
      // Roles change only by an owner (member.admin); an admin's invitations are not role changes.
      const allowed = permits(org.role, credentialOf(viewer), "member.admin");
      return { teams: byUser, inviters, ssoLinked, owners, roles: ROLES.map((id) => ({ id, scopes: scopesForRole(id), allowed })) };
    },

    async pendingInvitations(viewer, orgSlug) {
      deps.requireScope(viewer, "member:read");
      const org = await deps.membershipOrThrow(viewer, orgSlug);
      if (RANK[org.role] < RANK.admin) return [];
      return (await listInvitations(db, org.id)).map(info).filter((i) => i.state === "pending");
    },

    async invite(viewer, orgSlug, input) {
      const org = await authorize(viewer, orgSlug, "member.invite");
      const v = validate(z.object({ email: emailSchema, role: z.enum(ROLES), send: z.boolean().optional() }), input);
      if (v.role === "owner") requirePermission(viewer, org, "member.admin");
      const existing = await findUserByEmail(auth, v.email);
      if (existing && (await findMemberRole(db, org.id, existing.id)))
        throw new AppError("conflict", `${v.email} is already a member.`, {
          fields: [{ field: "email", rule: "unique", message: "already a member" }],
        });
      // One open invitation per address: a new one replaces the old link.
      for (const old of await listInvitations(db, org.id)) {
        if (old.email === v.email && stateOf(old) === "pending") await revokeInvitation(db, old.id, now());
      }
      const secret = randomBytes(32).toString("base64url");
      const row = await insertInvitation(db, {
        orgId: org.id,
        email: v.email,
        role: v.role,
        tokenHash: hashSecret(secret),
        invitedBy: viewer.userId,
        now: now(),
        expiresAt: now() + deps.invitationDays * DAY,
      });
      const emailed = await deliver(org, v.email, v.role, secret, v.send ?? true);
      return { invitation: info(row), link: linkOf(secret), emailed };
    },

    async resend(viewer, orgSlug, invitationId, opts = {}) {
      const org = await authorize(viewer, orgSlug, "member.invite");
      const inv = Number.isSafeInteger(invitationId) ? await findInvitation(db, org.id, invitationId) : undefined;
      if (!inv) throw new AppError("not_found", "Invitation not found.");
      if (inv.role === "owner") requirePermission(viewer, org, "member.admin");
      const state = stateOf(inv);
      if (state === "accepted" || state === "revoked")
        throw new AppError("invitation_invalid", `This invitation was ${state}; invite again.`);
      const secret = randomBytes(32).toString("base64url");
      const expiresAt = now() + deps.invitationDays * DAY;
      await renewInvitation(db, inv.id, hashSecret(secret), now(), expiresAt);
      const emailed = await deliver(org, inv.email, inv.role, secret, opts.send ?? true);
      return { invitation: { ...info(inv), state: "pending", createdAt: now(), expiresAt }, link: linkOf(secret), emailed };
    },

    async revoke(viewer, orgSlug, invitationId) {
      const org = await authorize(viewer, orgSlug, "member.invite");
      const inv = Number.isSafeInteger(invitationId) ? await findInvitation(db, org.id, invitationId) : undefined;
      if (!inv) throw new AppError("not_found", "Invitation not found.");
      if (inv.role === "owner") requirePermission(viewer, org, "member.admin");
      await revokeInvitation(db, inv.id, now());
    },

    async changeRole(viewer, orgSlug, userId, roleInput) {
      const org = await authorize(viewer, orgSlug, "member.admin");
      const role = parseRole(roleInput);
      const before = await writeTx(db, async (tx) => {
        const current = await findMemberRole(tx, org.id, userId);
        if (!current) throw new AppError("not_found", "Member not found.");
        if (current === "owner" && role !== "owner" && (await countOwners(tx, org.id)) <= 1) throw new AppError("last_owner");
        if (current !== role && (await isIdpManagedMember(tx, org.id, userId)))
          throw new AppError(
            "idp_managed",
            "This member's role is managed by your identity provider (SCIM or a group mapping): change it there.",
          );
        await setMemberRole(tx, org.id, userId, role);
        return current;
      });
      if (before !== role)
        await deps.audit?.record({
          orgId: org.id,
          actorUserId: viewer.userId,
          actor: viewer.email,
          action: "member.role",
          target: await emailOf(userId),
          details: { from: before, to: role },
        });
    },

    async remove(viewer, orgSlug, userId) {
      const self = userId === viewer.userId;
      const org = await authorize(viewer, orgSlug, self ? "member.leave" : "member.admin");
      await writeTx(db, async (tx) => {
        const current = await findMemberRole(tx, org.id, userId);
        if (!current) throw new AppError("not_found", "Member not found.");
        if (current === "owner" && (await countOwners(tx, org.id)) <= 1) throw new AppError("last_owner");
        if (await isIdpManagedMember(tx, org.id, userId))
          throw new AppError(
            "idp_managed",
            "This member is provisioned by your identity provider: deprovision them there (SCIM removes them at once).",
          );
        await deleteMember(tx, org.id, userId);
      });
      // Sessions are per user, not per org: ending them all makes the removal take effect on the
      // next request everywhere (their other organizations only need a new sign-in). Personal
      // tokens go too (SPEC §6): a removed person keeps nothing that still acts.
      await revokeUserSessions(auth, userId);
      const tokens = self ? 0 : await deletePersonalTokens(db, userId);
      await deps.audit?.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: self ? "member.leave" : "member.remove",
        target: await emailOf(userId),
        details: self ? null : { personalTokensDeleted: tokens },
      });
    },

    async preview(token, ip) {
      const inv = await openInvitation(token, ip);
      const org = await orgById(inv.orgId);
      return {
        orgSlug: org.slug,
        orgName: org.name,
        email: inv.email,
        role: inv.role,
        existingUser: (await findUserByEmail(auth, inv.email)) !== null,
      };
    },

    async accept(token, viewer, input = {}, ip) {
      const inv = await openInvitation(token, ip);
      const org = await orgById(inv.orgId);
      let userId = viewer?.userId;
      if (!userId) {
        if (await findUserByEmail(auth, inv.email))
          throw new AppError("unauthenticated", "An account with this email exists: sign in to accept.");
        const v = validate(z.object({ name: nameSchema, password: passwordSchema }), {
          name: input.name ?? "",
          password: input.password ?? "",
        });
        // Claim first so two racing requests cannot both create an account from one link.
        const claimed = await writeTx(db, (tx) => claimInvitation(tx, inv.id, `pending:${inv.id}`, now()));
        if (!claimed) throw new AppError("invitation_invalid");
        userId = (await createUserWithPassword(auth, { email: inv.email, password: v.password, name: v.name })).id;
        const id = userId;
        await writeTx(db, async (tx) => {
          await upsertMember(tx, { orgId: inv.orgId, userId: id, role: inv.role, now: now() });
          await setInvitationUser(tx, inv.id, id);
          // A newcomer joins the invitation's teams, else the default team (the org's first), so a
          // member sees its projects.
          await joinInvitedTeams(tx, inv.orgId, inv.id, id);
        });
        return { orgSlug: org.slug, email: inv.email };
      }
      // An invitation is for the invited address only: another signed-in account changes nothing.
      if (!sameEmail(viewer?.email ?? "", inv.email))
        throw new AppError(
          "invitation_other_account",
          `This invitation is for ${inv.email}; you are signed in as ${viewer?.email}. Sign out, then open the link again.`,
        );
      const id = userId;
      await writeTx(db, async (tx) => {
        if (!(await claimInvitation(tx, inv.id, id, now()))) throw new AppError("invitation_invalid");
        // An existing member keeps the higher of their role and the invited one.
        const current = await findMemberRole(tx, inv.orgId, id);
        if (!current || RANK[current] < RANK[inv.role])
          await upsertMember(tx, { orgId: inv.orgId, userId: id, role: inv.role, now: now() });
        if (!current) await joinInvitedTeams(tx, inv.orgId, inv.id, id);
      });
      return { orgSlug: org.slug, email: viewer?.email ?? inv.email };
    },
  };

  async function withManaged(orgId: number, members: MemberInfo[]): Promise<MemberInfo[]> {
    const managed = await idpManagedMembers(db, orgId);
    return members.map((m) => ({ ...m, managed: managed.has(m.userId) }));
  }

  async function emailOf(userId: string): Promise<string> {
    return (await findUserProfile(db, userId))?.email ?? userId;
  }

  async function orgById(orgId: number): Promise<{ slug: string; name: string }> {
    const row = await findOrgById(db, orgId);
    if (!row) throw new AppError("invitation_invalid");
    return row;
  }
}
