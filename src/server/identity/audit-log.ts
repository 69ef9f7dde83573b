/**
 * The organization's audit log (SPEC §2, issue 42): who signed in through the identity provider,
 * who SCIM provisioned and deprovisioned, who changed single sign-on, SCIM or group mappings, who
 * changed a role or removed a member. Services append; owners read it at
 * /[org]/settings/audit-log and through `GET /api/0/organizations/{org}/audit-logs/`.
 */
import { z } from "zod";
import { validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { type AuditEntryInput, type AuditEntryRow, appendAudit, listAudit } from "../../storage/identity/audit-log";
import type { Action } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";

/** One entry as screens read it. */
export type AuditEntry = AuditEntryRow;

export type AuditRecord = Omit<AuditEntryInput, "at" | "address"> & { address?: string | null };

export interface AuditPage {
  org: OrgSummary;
  entries: AuditEntryRow[];
  /** the id to pass as `before` for older entries, or null at the end */
  next: number | null;
}

export interface AuditLogServices {
  /** Appends an entry; never fails the action it records (a lost line is logged). */
  record(entry: AuditRecord): Promise<void>;
  page(viewer: Viewer, orgSlug: string, query?: { before?: unknown; action?: unknown; limit?: unknown }): Promise<AuditPage>;
}

const QuerySchema = z.object({
  before: z.coerce.number().int().positive().optional(),
  action: z.string().trim().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export function createAuditLogServices(deps: {
  db: Db;
  now: () => number;
  log: { warn(obj: object, msg: string): void };
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
}): AuditLogServices {
  const { db, now, log } = deps;
  return {
    async record(entry) {
      try {
        await appendAudit(db, { ...entry, address: entry.address ?? null, at: now() });
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err), action: entry.action }, "audit log: entry not written");
      }
    },

    async page(viewer, orgSlug, query = {}) {
      const org = await deps.authorize(viewer, orgSlug, "audit.read");
      const q = validate(QuerySchema, {
        before: query.before || undefined,
        action: query.action || undefined,
        limit: query.limit || undefined,
      });
      const rows = await listAudit(db, org.id, { before: q.before, action: q.action, limit: q.limit + 1 });
      const entries = rows.slice(0, q.limit);
      return { org, entries, next: rows.length > q.limit ? (entries.at(-1)?.id ?? null) : null };
    },
  };
}
