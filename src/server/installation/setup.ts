/** First run (`/setup`): the owner account and first organization, once. */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { emailSchema, nameSchema, passwordSchema, slugSchema, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { countOrgs, insertOrg, upsertMember } from "../../storage/orgs/orgs";
import { type Auth, createUserWithPassword, findUserByEmail } from "../auth/auth";
import type { AppServices } from "../services";

export function createSetupServices(deps: { db: Db; auth: Auth; now: () => number }): AppServices["setup"] {
  const { db, auth, now } = deps;
  return {
    isDone: async () => (await countOrgs(db)) > 0,
    async createOwner(input) {
      const v = validate(
        z.object({ name: nameSchema, email: emailSchema, password: passwordSchema, orgName: nameSchema, orgSlug: slugSchema }),
        input,
      );
      if ((await countOrgs(db)) > 0) throw new AppError("setup_done");
      if (await findUserByEmail(auth, v.email))
        throw new AppError("conflict", "A user with this email exists.", {
          fields: [{ field: "email", rule: "unique", message: "already registered" }],
        });
      const user = await createUserWithPassword(auth, { email: v.email, password: v.password, name: v.name });
      await writeTx(db, async (tx) => {
        const org = await insertOrg(tx, { slug: v.orgSlug, name: v.orgName, now: now() });
        await upsertMember(tx, { orgId: org.id, userId: user.id, role: "owner", now: now() });
      });
      return { orgSlug: v.orgSlug, userId: user.id };
    },
  };
}
