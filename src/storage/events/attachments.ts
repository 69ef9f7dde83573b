/**
 * Attachments: files sent with an event (envelope `attachment` items), stored as blobs next to
 * the event they name. Deduplicated by (project, event, name, sha1) because the queue delivers at
 * least once.
 */
import { createHash } from "node:crypto";
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface NewAttachment {
  projectId: number;
  eventId: string;
  name: string;
  contentType: string;
  attachmentType: string;
  data: Uint8Array;
  createdAt: number;
}

export interface AttachmentMeta {
  id: number;
  projectId: number;
  eventId: string;
  name: string;
  contentType: string;
  attachmentType: string;
  size: number;
  checksum: string;
  createdAt: number;
}

export interface AttachmentFile extends AttachmentMeta {
  data: Buffer;
}

/** Stores an attachment; false when the same file was already stored for this event. */
export async function insertAttachment(tx: Tx, a: NewAttachment): Promise<boolean> {
  const data = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const res = await tx
    .insertInto("attachments")
    .values({
      project_id: a.projectId,
      event_id: a.eventId,
      name: a.name,
      content_type: a.contentType,
      attachment_type: a.attachmentType,
      size: data.length,
      checksum: createHash("sha1").update(data).digest("hex"),
      data,
      created_at: a.createdAt,
    })
    .onConflict((oc) => oc.columns(["project_id", "event_id", "name", "checksum"]).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

const metaColumns = ["id", "project_id", "event_id", "name", "content_type", "attachment_type", "size", "checksum", "created_at"] as const;

interface MetaSelect {
  id: number;
  project_id: number;
  event_id: string;
  name: string;
  content_type: string;
  attachment_type: string;
  size: number;
  checksum: string;
  created_at: number;
}

function toMeta(r: MetaSelect): AttachmentMeta {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    eventId: r.event_id,
    name: r.name,
    contentType: r.content_type,
    attachmentType: r.attachment_type,
    size: Number(r.size),
    checksum: r.checksum,
    createdAt: Number(r.created_at),
  };
}

/** The attachments of an event, without their bytes, in arrival order. */
export async function listEventAttachments(db: Db, projectId: number, eventId: string): Promise<AttachmentMeta[]> {
  const rows = await db.kysely
    .selectFrom("attachments")
    .select(metaColumns)
    .where("project_id", "=", projectId)
    .where("event_id", "=", eventId)
    .orderBy("id")
    .execute();
  return rows.map(toMeta);
}

/** One attachment with its bytes, only when it belongs to this project and event. */
export async function getAttachment(db: Db, projectId: number, eventId: string, id: number): Promise<AttachmentFile | undefined> {
  const row = await db.kysely
    .selectFrom("attachments")
    .select([...metaColumns, "data"])
    .where("id", "=", id)
    .where("project_id", "=", projectId)
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...toMeta(row), data: Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data as unknown as Uint8Array) };
}

export async function countAttachments(db: Db, projectId: number): Promise<number> {
  const row = await db.kysely
    .selectFrom("attachments")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
