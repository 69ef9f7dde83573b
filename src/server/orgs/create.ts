/**
 * Another organization (issue 9): an owner of any organization may create one, becoming its
 * owner. Slugs that name top-level pages are refused so an org can never shadow them.
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { nameSchema, slugSchema, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { isUniqueViolation, writeTx } from "../../storage/dialect";
import { insertOrg, listMemberships, upsertMember } from "../../storage/orgs/orgs";
import type { Viewer } from "../types";

const RESERVED = new Set(["api", "account", "invite", "login", "setup", "orgs", "debug", "healthz", "readyz", "metrics", "_next"]);

export async function createOrganization(
  db: Db,
  now: () => number,
  viewer: Viewer,
  input: { name: string; slug: string },
): Promise<{ slug: string }> {
  if (viewer.scopes) throw new AppError("forbidden", "Organizations are created from a signed-in browser session.");
  const v = validate(z.object({ name: nameSchema, slug: slugSchema }), input);
  if (!(await listMemberships(db, viewer.userId)).some((m) => m.role === "owner"))
    throw new AppError("forbidden", "Only owners of an organization can create another.");
  if (RESERVED.has(v.slug))
    throw new AppError("validation_failed", `"${v.slug}" is reserved.`, {
      fields: [{ field: "slug", rule: "reserved", message: "reserved: choose another" }],
    });
  try {
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: v.slug, name: v.name, now: now() });
      await upsertMember(tx, { orgId: org.id, userId: viewer.userId, role: "owner", now: now() });
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError("conflict", `The slug "${v.slug}" is taken.`, {
        fields: [{ field: "slug", rule: "unique", message: "already taken" }],
      });
    throw err;
  }
  return { slug: v.slug };
}
