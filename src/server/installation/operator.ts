/**
 * The operator CLI (`errata user|project|token create`): acts without a viewer, as whoever runs
 * the command on the server. A password reset through it ends the user's sessions (issue 9).
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../../config";
import { formatDsn } from "../../core/dsn";
import { AppError } from "../../core/errors";
import { expandScopes, TOKEN_SCOPES } from "../../core/token-scopes";
import { emailSchema, nameSchema, passwordSchema, slugify, slugSchema, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { acceptOpenInvitationsOf } from "../../storage/members/invitations";
import { findMemberRole } from "../../storage/members/members";
import { addToDefaultTeam, joinInvitedTeams } from "../../storage/members/teams";
import { insertToken } from "../../storage/members/tokens";
import { findOrgBySlug, insertOrg, upsertMember } from "../../storage/orgs/orgs";
import { findProjectBySlug, insertKey, insertProject, listKeys, type ProjectRow } from "../../storage/orgs/projects";
import { type Auth, createUserWithPassword, findUserByEmail, revokeUserSessions, setUserPassword } from "../auth/auth";
import { hashApiToken } from "../auth/sessions";
import { refuseBeyond, scopesOfUser } from "../members/tokens";

export interface OperatorServices {
  /** CLI: create a user (or reset the password of an existing one) as owner of an org (created when missing). */
  createOwner(input: {
    email: string;
    password: string;
    orgSlug: string;
    name?: string;
  }): Promise<{ userId: string; orgSlug: string; created: boolean }>;
  createProject(input: { orgSlug: string; name: string; platform?: string }): Promise<{ project: ProjectRow; dsn: string }>;
  createToken(input: { email: string; scopes: string[]; name?: string }): Promise<{ token: string }>;
}

export function createOperatorServices(deps: { db: Db; auth: Auth; config: Config; now: () => number }): OperatorServices {
  const { db, auth, config, now } = deps;
  return {
    async createOwner(input) {
      const email = validate(emailSchema, input.email);
      const password = validate(passwordSchema, input.password);
      const orgSlug = validate(slugSchema, input.orgSlug);
      let user = await findUserByEmail(auth, email);
      const created = !user;
      if (!user) {
        const u = await createUserWithPassword(auth, { email, password, name: input.name ?? email.split("@")[0] ?? email });
        user = { id: u.id, email, name: input.name ?? email };
      } else {
        await setUserPassword(auth, user.id, password);
        // A reset must lock out whoever had the old password (issue 9).
        await revokeUserSessions(auth, user.id);
      }
      const userId = user.id;
      await writeTx(db, async (tx) => {
        const org = (await findOrgBySlug(tx, orgSlug)) ?? (await insertOrg(tx, { slug: orgSlug, name: orgSlug, now: now() }));
        const wasMember = (await findMemberRole(tx, org.id, userId)) !== undefined;
        await upsertMember(tx, { orgId: org.id, userId, role: "owner", now: now() });
        // An invitation waiting for this email (an imported one, say) is answered: they are in,
        // with the invitation's teams as accepting it would have given them.
        for (const id of await acceptOpenInvitationsOf(tx, org.id, email, userId, now())) {
          if (!wasMember) await joinInvitedTeams(tx, org.id, id, userId);
        }
      });
      return { userId, orgSlug, created };
    },
    async createProject(input) {
      const name = validate(nameSchema, input.name);
      const org = await findOrgBySlug(db, validate(slugSchema, input.orgSlug));
      if (!org) throw new AppError("not_found", `No organization "${input.orgSlug}".`);
      const slug = slugify(name);
      if (await findProjectBySlug(db, org.id, slug)) throw new AppError("conflict", `Project "${slug}" already exists in ${org.slug}.`);
      const project = await writeTx(db, async (tx) => {
        const p = await insertProject(tx, {
          orgId: org.id,
          slug,
          name,
          platform: input.platform ?? "other",
          now: now(),
          emailAlerts: config.smtp !== null,
        });
        await insertKey(tx, { projectId: p.id, publicKey: randomBytes(16).toString("hex"), label: "Default", now: now() });
        await addToDefaultTeam(tx, org.id, { projectId: p.id });
        return p;
      });
      const key = (await listKeys(db, project.id))[0];
      return { project, dsn: formatDsn(config.publicIngestUrl, key?.publicKey ?? "", project.id) };
    },
    async createToken(input) {
      const user = await findUserByEmail(auth, validate(emailSchema, input.email));
      if (!user) throw new AppError("not_found", `No user with email ${input.email}.`);
      const unknown = input.scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
      if (unknown.length > 0)
        throw new AppError("validation_failed", `Unknown scopes: ${unknown.join(", ")} (known: ${TOKEN_SCOPES.join(", ")}).`);
      // Never more than the user's highest role allows (a viewer's token only reads).
      refuseBeyond(input.scopes, await scopesOfUser(db, user.id));
      const scopes = expandScopes(input.scopes);
      // Sentry's personal-token form, as the account page issues it (sentry-cli checks the shape).
      const token = `sntryu_${randomBytes(32).toString("hex")}`;
      await insertToken(db, {
        userId: user.id,
        orgId: null,
        name: input.name ?? "CLI token",
        tokenHash: hashApiToken(token),
        tokenPrefix: token.slice(0, 14),
        scopes,
        now: now(),
      });
      return { token };
    },
  };
}
