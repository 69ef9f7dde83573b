/**
 * Blobs in PostgreSQL's `blobs` table (migration 0047): every process of a fleet reads every blob,
 * and a put is one committed statement. Values are bytea; a replay segment is at most a few MB,
 * well inside what one row carries.
 */
import { Readable } from "node:stream";
import { sql } from "kysely";
import type { Db } from "../db";
import { type BlobInfo, type BlobStore, BlobTooLargeError, checkKey, checkPrefix } from "./blob-types";

/** Keys hold `_`, a LIKE wildcard: escaped for prefix matches. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function createPgBlobStore(db: Db): BlobStore {
  const k = db.kysely;

  async function put(key: string, data: Uint8Array): Promise<void> {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    await k
      .insertInto("blobs")
      .values({ key: checkKey(key), size: bytes.length, data: bytes, created_at: Date.now() })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet((eb) => ({
          size: eb.ref("excluded.size"),
          data: eb.ref("excluded.data"),
          created_at: eb.ref("excluded.created_at"),
        })),
      )
      .execute();
  }

  async function get(key: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
    const head = await k.selectFrom("blobs").select("size").where("key", "=", checkKey(key)).executeTakeFirst();
    if (!head) return undefined;
    if (head.size > maxBytes) throw new BlobTooLargeError(key, head.size);
    const row = await k.selectFrom("blobs").select("data").where("key", "=", key).executeTakeFirst();
    return row?.data;
  }

  async function stream(key: string): Promise<Readable | undefined> {
    const data = await get(key);
    return data === undefined ? undefined : Readable.from([data]);
  }

  async function remove(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await k.deleteFrom("blobs").where("key", "in", keys.map(checkKey)).execute();
  }

  async function deletePrefix(prefix: string): Promise<number> {
    const r = await k
      .deleteFrom("blobs")
      .where(sql<boolean>`key like ${likePrefix(checkPrefix(prefix))}`)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async function* list(prefix: string): AsyncIterable<BlobInfo> {
    const pattern = likePrefix(checkPrefix(prefix));
    let after = "";
    for (;;) {
      const rows = await k
        .selectFrom("blobs")
        .select(["key", "size", "created_at"])
        .where(sql<boolean>`key like ${pattern}`)
        .where("key", ">", after)
        .orderBy("key")
        .limit(1000)
        .execute();
      for (const r of rows) yield { key: r.key, size: Number(r.size), createdAt: Number(r.created_at) };
      if (rows.length < 1000) return;
      after = rows[rows.length - 1]?.key ?? after;
    }
  }

  return { kind: "postgres", put, get, stream, delete: remove, deletePrefix, list };
}
