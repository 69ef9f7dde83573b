/** The audit log as Sentry's `GET /organizations/{org}/audit-logs/` answers it (`rows`). */
import type { AuditEntryRow } from "../../storage/identity/audit-log";

export function auditLogShape(entries: AuditEntryRow[]): { rows: Record<string, unknown>[] } {
  return {
    rows: entries.map((e) => ({
      id: String(e.id),
      actor: e.actorUserId ? { id: e.actorUserId, email: e.actor, name: e.actor } : { name: e.actor },
      event: e.action,
      ipAddress: e.address,
      note: e.target,
      targetObject: null,
      targetUser: null,
      data: e.details ?? {},
      dateCreated: new Date(e.at).toISOString(),
    })),
  };
}
