/**
 * A project's ownership rules as the digest, the delivery loop and the issue page use them (issue
 * 30): its CODEOWNERS files' lines first, then the rules written in the ownership settings — the
 * last match wins, so a written rule takes precedence over CODEOWNERS, as in Sentry. CODEOWNERS
 * handles go through the organization's external names; those without one are left out here and
 * listed by the settings page.
 */
import { codeownersRules, type ExternalTarget, externalNamesOf, parseCodeowners } from "../../core/ownership/codeowners";
import { type OwnershipRule, parseOwnershipRules } from "../../core/ownership/rules";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { listCodeowners, listExternalNames } from "./codeowners";
import { findOwnership, membersByEmail, type OwnershipRow, projectOrgId } from "./ownership";

export interface ProjectRules {
  settings: OwnershipRow | undefined;
  rules: OwnershipRule[];
  /** CODEOWNERS names with no team or member here */
  unmatched: string[];
}

/** `orgId` undefined: read only when there are CODEOWNERS files (the digest calls this per project and batch). */
export async function projectOwnershipRules(c: Db | Tx, projectId: number, knownOrgId?: number): Promise<ProjectRules> {
  const settings = await findOwnership(c, projectId);
  const written = settings ? parseOwnershipRules(settings.raw).rules : [];
  const files = await listCodeowners(c, projectId);
  if (files.length === 0) return { settings, rules: written, unmatched: [] };
  const orgId = knownOrgId ?? (await projectOrgId(c, projectId));
  if (orgId === undefined) return { settings, rules: written, unmatched: [] };
  const entries = files.flatMap((f) => parseCodeowners(f.raw).entries);
  const mapping = new Map<string, ExternalTarget>();
  const wanted = new Set(externalNamesOf(entries));
  for (const x of await listExternalNames(c, orgId)) {
    if (!wanted.has(x.externalName)) continue;
    if (x.teamSlug) mapping.set(x.externalName, { type: "team", slug: x.teamSlug });
    else if (x.userEmail) mapping.set(x.externalName, { type: "user", email: x.userEmail });
  }
  const emails = entries.flatMap((e) => e.owners.filter((o) => !o.startsWith("@")));
  const members = await membersByEmail(c, orgId, emails);
  const fromFiles = codeownersRules(entries, mapping, (email) => members.has(email));
  return { settings, rules: [...fromFiles.rules, ...written], unmatched: fromFiles.unmatched };
}
