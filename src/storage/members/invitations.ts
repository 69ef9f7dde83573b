import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { InvitationsTable, MembersTable } from "../schema";

export interface InvitationRow {
  id: number;
  orgId: number;
  email: string;
  role: MembersTable["role"];
  invitedBy: string;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
  revokedAt: number | null;
}

type Raw = Pick<
  InvitationsTable,
  "org_id" | "email" | "role" | "invited_by" | "created_at" | "expires_at" | "accepted_at" | "revoked_at"
> & { id: number };

const COLUMNS = ["id", "org_id", "email", "role", "invited_by", "created_at", "expires_at", "accepted_at", "revoked_at"] as const;

function toRow(r: Raw): InvitationRow {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    email: r.email,
    role: r.role,
    invitedBy: r.invited_by,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    acceptedAt: r.accepted_at === null ? null : Number(r.accepted_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}

export async function insertInvitation(
  db: Db,
  i: { orgId: number; email: string; role: MembersTable["role"]; tokenHash: string; invitedBy: string; now: number; expiresAt: number },
): Promise<InvitationRow> {
  const row = await db.kysely
    .insertInto("invitations")
    .values({
      org_id: i.orgId,
      email: i.email,
      role: i.role,
      token_hash: i.tokenHash,
      invited_by: i.invitedBy,
      created_at: i.now,
      expires_at: i.expiresAt,
      accepted_at: null,
      accepted_user_id: null,
      revoked_at: null,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  return toRow(row);
}

/** Invitations of an org, newest first (the settings page filters what it shows). */
export async function listInvitations(db: Db, orgId: number): Promise<InvitationRow[]> {
  const rows = await db.kysely
    .selectFrom("invitations")
    .select(COLUMNS)
    .where("org_id", "=", orgId)
    .orderBy("id", "desc")
    .limit(500)
    .execute();
  return rows.map(toRow);
}

export async function findInvitation(db: Db | Tx, orgId: number, id: number): Promise<InvitationRow | undefined> {
  const k = "kysely" in db ? db.kysely : db;
  const row = await k.selectFrom("invitations").select(COLUMNS).where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function findInvitationByHash(db: Db | Tx, tokenHash: string): Promise<InvitationRow | undefined> {
  const k = "kysely" in db ? db.kysely : db;
  const row = await k.selectFrom("invitations").select(COLUMNS).where("token_hash", "=", tokenHash).executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function revokeInvitation(db: Db, id: number, now: number): Promise<void> {
  await db.kysely.updateTable("invitations").set({ revoked_at: now }).where("id", "=", id).where("accepted_at", "is", null).execute();
}

/** Resend: a fresh secret and expiry on the same row (the old link stops working). */
export async function renewInvitation(db: Db, id: number, tokenHash: string, now: number, expiresAt: number): Promise<void> {
  await db.kysely
    .updateTable("invitations")
    .set({ token_hash: tokenHash, created_at: now, expires_at: expiresAt })
    .where("id", "=", id)
    .execute();
}

/**
 * Marks the invitation used, only if still open: returns false when another request used it first
 * (single use holds under concurrency because the update is conditional).
 */
export async function claimInvitation(tx: Tx, id: number, userId: string, now: number): Promise<boolean> {
  const res = await tx
    .updateTable("invitations")
    .set({ accepted_at: now, accepted_user_id: userId })
    .where("id", "=", id)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Closes the organization's open invitations of an email as accepted by `userId` (the operator
 * made that person a member directly, e.g. `errata user create` after an import): their ids.
 */
export async function acceptOpenInvitationsOf(tx: Tx, orgId: number, email: string, userId: string, now: number): Promise<number[]> {
  const open = await tx
    .selectFrom("invitations")
    .select("id")
    .where("org_id", "=", orgId)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.toLowerCase()))
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .execute();
  const ids = open.map((r) => Number(r.id));
  if (ids.length > 0)
    await tx.updateTable("invitations").set({ accepted_at: now, accepted_user_id: userId }).where("id", "in", ids).execute();
  return ids;
}

export async function setInvitationUser(tx: Tx, id: number, userId: string): Promise<void> {
  await tx.updateTable("invitations").set({ accepted_user_id: userId }).where("id", "=", id).execute();
}

export async function findOrgById(db: Db, orgId: number): Promise<{ slug: string; name: string } | undefined> {
  return db.kysely.selectFrom("organizations").select(["slug", "name"]).where("id", "=", orgId).executeTakeFirst();
}
