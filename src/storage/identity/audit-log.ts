/** The audit log per organization (0053-audit-log): appended by the services, read by owners. */
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface AuditEntryInput {
  orgId: number;
  at: number;
  actorUserId: string | null;
  actor: string;
  action: string;
  target: string;
  address: string | null;
  details: Record<string, unknown> | null;
}

export interface AuditEntryRow extends AuditEntryInput {
  id: number;
}

type Conn = Db | Tx;
const k = (c: Conn) => ("kysely" in c ? c.kysely : c);

export async function appendAudit(c: Conn, e: AuditEntryInput): Promise<void> {
  await k(c)
    .insertInto("audit_log")
    .values({
      org_id: e.orgId,
      at: e.at,
      actor_user_id: e.actorUserId,
      actor: e.actor.slice(0, 200),
      action: e.action,
      target: e.target.slice(0, 300),
      address: e.address,
      details: e.details ? JSON.stringify(e.details) : null,
    })
    .execute();
}

/** Newest first, `limit` entries older than the cursor id (none: from the newest). */
export async function listAudit(
  c: Conn,
  orgId: number,
  page: { before?: number; limit: number; action?: string },
): Promise<AuditEntryRow[]> {
  let q = k(c).selectFrom("audit_log").selectAll().where("org_id", "=", orgId);
  if (page.before !== undefined) q = q.where("id", "<", page.before);
  if (page.action !== undefined) q = q.where("action", "=", page.action);
  const rows = await q.orderBy("id", "desc").limit(page.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    orgId: Number(r.org_id),
    at: Number(r.at),
    actorUserId: r.actor_user_id,
    actor: r.actor,
    action: r.action,
    target: r.target,
    address: r.address,
    details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : null,
  }));
}
