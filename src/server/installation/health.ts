/** /readyz and storage failures (one log line per state change; src/storage/storage-health.ts). */
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import { isMigrated } from "../../storage/migrate";
import { isStorageUnavailable, storageHealth } from "../../storage/storage-health";
import type { AppServices } from "../services";

export function createHealthServices(db: Db, log: Logger): AppServices["health"] {
  return {
    async ready() {
      try {
        const migrations = await isMigrated(db);
        // Reads work while another process holds SQLite's write lock: probe writability too.
        const writable = await storageHealth(db).check(log);
        return { ok: migrations && writable, database: true, migrations, writable };
      } catch {
        return { ok: false, database: false, migrations: false, writable: false };
      }
    },
    storageFailed(err) {
      if (!isStorageUnavailable(err)) return false;
      storageHealth(db).failed(err, log);
      return true;
    },
  };
}
