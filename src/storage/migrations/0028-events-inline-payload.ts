import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { applyPartitionStorage } from "../events/partitions";

/**
 * PostgreSQL: event rows up to ~8 KB stay whole in their heap page. The payload is already
 * brotli-compressed, so with the default TOAST target (~2 KB) a 5 KB event's row had its payload
 * run through pglz (which finds nothing to save) and then moved to the TOAST table: a second heap
 * insert and a TOAST index insert per event, inside the digest's transaction. Measured on the
 * development machine, inserting 20,000 rows with 2.5 KB incompressible payloads: 30-41 µs of
 * server time per row with the default target, 17-20 µs with this one. Weekly partitions are
 * created with it (event-partitions.ts); this sets it on the partitions that exist. Only rows
 * written afterwards change. SQLite: nothing to do.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== "postgres") return;
  await applyPartitionStorage(db);
}
