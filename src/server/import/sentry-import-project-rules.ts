/**
 * A project's fingerprint and stack-trace rules (`fingerprintingRules`, `groupingEnhancements` on
 * the project details) and its ownership rules (`/ownership/`) in an import from Sentry (issue 32).
 * Errata reads both in Sentry's own syntax, so the texts move as written when every line parses
 * here; a text with a line Errata does not know is left out whole, with the line in the report
 * (half a rule set would group or assign differently). Ownership lines naming people who are not
 * members here yet (imported members are invitations) wait for a later run.
 */

import { z } from "zod";
import { AppError } from "../../core/errors";
import { parseFingerprintRules } from "../../core/grouping/rules/fingerprint-rules";
import { parseStackRules } from "../../core/grouping/rules/stack-rules";
import { type ImportReport, importedSlug } from "../../core/import/sentry";
import {
  type AutoAssignment,
  autoAssignmentFromLabel,
  ownerIdentifiers,
  parseOwnershipRules,
  unknownOwners,
} from "../../core/ownership/rules";
import type { Tx } from "../../storage/dialect";
import { findOwnership, membersByEmail, saveOwnership, teamsBySlug } from "../../storage/ownership/ownership";
import type { SentryClient } from "./sentry-client";

/** Errata's limit on a rule text (the digest parses it for every batch). */
const RULES_MAX_CHARS = 32_000;

export const sentryOwnershipSchema = z.object({
  raw: z.string().nullish(),
  fallthrough: z.boolean().nullish(),
  /** null: the project has no ownership settings (Sentry answers its defaults) */
  dateCreated: z.string().nullish(),
  autoAssignment: z.string().nullish(),
  codeownersAutoSync: z.boolean().nullish(),
});
export type SentryOwnership = z.infer<typeof sentryOwnershipSchema>;

export async function readOwnership(client: SentryClient, org: string, project: string): Promise<SentryOwnership | null> {
  return client
    .get(`/api/0/projects/${encodeURIComponent(org)}/${encodeURIComponent(project)}/ownership/`, sentryOwnershipSchema)
    .catch((err: unknown) => {
      if (err instanceof AppError && (err.code === "import_source_not_found" || err.code === "import_source_unauthorized")) return null;
      throw err;
    });
}

/**
 * The project settings' grouping rule texts to set, and notes for the ones left out. `undefined`
 * for a key: the source did not send it (leave as is).
 */
export function groupingRulesPatch(d: { fingerprintingRules?: string | null; groupingEnhancements?: string | null }): {
  patch: { fingerprintingRules?: string | null; groupingEnhancements?: string | null };
  notes: string[];
} {
  const patch: { fingerprintingRules?: string | null; groupingEnhancements?: string | null } = {};
  const notes: string[] = [];
  const check = (key: "fingerprintingRules" | "groupingEnhancements", text: string | null | undefined, what: string) => {
    if (text === undefined) return;
    const t = (text ?? "").trimEnd();
    if (t.length > RULES_MAX_CHARS) {
      notes.push(`${what} not moved: over ${RULES_MAX_CHARS} characters`);
      return;
    }
    const errors = t === "" ? [] : key === "fingerprintingRules" ? parseFingerprintRules(t).errors : parseStackRules(t).errors;
    if (errors.length > 0) {
      notes.push(`${what} not moved: line ${errors[0]?.line}: ${errors[0]?.message}`);
      return;
    }
    patch[key] = t === "" ? null : t;
  };
  check("fingerprintingRules", d.fingerprintingRules, "fingerprint rules");
  check("groupingEnhancements", d.groupingEnhancements, "stack-trace rules");
  return { patch, notes };
}

/** Team owners named by their Sentry slug (`#mobile_team`) become Errata's (`#mobile-team`). */
function withImportedTeamSlugs(raw: string): string {
  return raw.replace(/#([A-Za-z0-9_.-]+)/g, (_m, slug: string) => `#${importedSlug(slug)}`);
}

/** A project's ownership rules (one transaction): created, updated, unchanged or skipped with why. */
export async function applyOwnership(
  tx: Tx,
  at: { orgId: number; projectId: number; projectSlug: string; now: number },
  own: SentryOwnership,
  report: ImportReport,
): Promise<void> {
  const name = at.projectSlug;
  const raw = withImportedTeamSlugs((own.raw ?? "").trimEnd());
  const current = await findOwnership(tx, at.projectId);
  if (raw === "" && !current) return;
  const { rules, errors } = parseOwnershipRules(raw);
  if (errors.length > 0) {
    report.entries.push({ kind: "ownership", name, action: "skipped", note: `line ${errors[0]?.line}: ${errors[0]?.message}` });
    return;
  }
  const ids = ownerIdentifiers(rules);
  const missing = unknownOwners(rules, {
    members: await membersByEmail(tx, at.orgId, ids.emails),
    teams: await teamsBySlug(tx, at.orgId, ids.teams),
  });
  if (missing.length > 0) {
    const who = missing.map((m) => m.message.split(":")[0]).join(", ");
    report.entries.push({
      kind: "ownership",
      name,
      action: "skipped",
      note: `${who} not members here yet: run the import again once they accepted their invitations`,
    });
    return;
  }
  const autoAssignment: AutoAssignment = (own.autoAssignment && autoAssignmentFromLabel(own.autoAssignment)) || "owner";
  const row = {
    projectId: at.projectId,
    raw,
    fallthrough: own.fallthrough ?? true,
    autoAssignment,
    codeownersAutoSync: own.codeownersAutoSync ?? true,
  };
  const same =
    current &&
    current.raw === row.raw &&
    current.fallthrough === row.fallthrough &&
    current.autoAssignment === row.autoAssignment &&
    current.codeownersAutoSync === row.codeownersAutoSync;
  if (!same) await saveOwnership(tx, row, at.now);
  report.entries.push({
    kind: "ownership",
    name,
    action: same ? "unchanged" : current ? "updated" : "created",
    note: `${rules.length} rules`,
  });
}
