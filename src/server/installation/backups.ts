/**
 * The installation's Backups page: the schedule (BACKUP_DIR / BACKUP_EVERY / BACKUP_KEEP), the last
 * successful backup and its size, the last error, the latest runs. Backups belong to the whole
 * installation, not one organization: the permission table's `installation.backups` row decides,
 * asked with the viewer's role in the installation's first organization (owners, signed in).
 */
import type { BackupConfig } from "../../config";
import { AppError } from "../../core/errors";
import { type BackupRun, backupSummary, recentBackupRuns } from "../../storage/backup/backup-runs";
import type { Db } from "../../storage/db";
import { firstOrgRole } from "../../storage/installation";
import { credentialOf } from "../access/access";
import { permits } from "../access/permissions";
import type { Viewer } from "../types";

export type { BackupRun };

export interface BackupStatus {
  /** null: BACKUP_DIR is unset, no scheduled backups */
  schedule: { dir: string; every: string; everyMs: number; keep: number } | null;
  dialect: "sqlite" | "postgres";
  lastSuccess: BackupRun | null;
  lastFailure: BackupRun | null;
  recent: BackupRun[];
}

export interface BackupServices {
  /** May this viewer see the installation's pages? (false, never a throw) */
  isOperator(viewer: Viewer): Promise<boolean>;
  /** Throws `forbidden` unless the viewer is an installation operator. */
  status(viewer: Viewer): Promise<BackupStatus>;
}

export function createBackupServices(deps: { db: Db; backup: BackupConfig }): BackupServices {
  const { db, backup } = deps;
  const isOperator = async (viewer: Viewer) => {
    const role = await firstOrgRole(db, viewer.userId);
    return role !== null && permits(role, credentialOf(viewer), "installation.backups");
  };
  return {
    isOperator,
    async status(viewer) {
      if (!(await isOperator(viewer)))
        throw new AppError("forbidden", "Only the installation's operators (owners of its first organization) see its backups.");
      const [summary, recent] = await Promise.all([backupSummary(db), recentBackupRuns(db, 10)]);
      return {
        schedule: backup?.dir ? { dir: backup.dir, every: backup.every, everyMs: backup.everyMs, keep: backup.keep } : null,
        dialect: db.dialect,
        ...summary,
        recent,
      };
    },
  };
}
