/**
 * The manifest of an `errata backup` archive (`manifest.json`, the archive's last entry) and the
 * checks a restore makes before it touches its target: every file named, none missing, none extra,
 * each with its SHA-256; the schema no newer than this code's. Pure: the caller reads the archive.
 */
import { AppError } from "../errors";

export const MANIFEST_NAME = "manifest.json";
/** Bumped when the archive's layout changes in a way an older restore cannot read. */
export const ARCHIVE_FORMAT = 1;

export interface ManifestFile {
  /** path inside the archive, e.g. `db/errata.db`, `blobs/replays/1/ab…/0` */
  path: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: number;
  errataVersion: string;
  /** the last migration applied to the database backed up, e.g. `0054-backup-runs` */
  schema: string;
  dialect: "sqlite" | "postgres";
  createdAt: string;
  /** rows per main table (and `blobs`: stored blobs, files or rows) when the backup's snapshot was taken */
  counts: Record<string, number>;
  files: ManifestFile[];
}

/** The order migrations sort in is their name's order (`0001-…` … `0054-…`). */
export function isNewerSchema(archive: string, code: string): boolean {
  return archive.localeCompare(code, "en") > 0;
}

/** Parses manifest.json; anything that is not one is a corrupt archive. */
export function parseManifest(text: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("backup_corrupt", "The backup's manifest.json is not valid JSON. Nothing was restored.");
  }
  const m = raw as Partial<BackupManifest> | null;
  const ok =
    m !== null &&
    typeof m === "object" &&
    typeof m.format === "number" &&
    typeof m.schema === "string" &&
    (m.dialect === "sqlite" || m.dialect === "postgres") &&
    typeof m.counts === "object" &&
    m.counts !== null &&
    Array.isArray(m.files) &&
    m.files.every((f) => typeof f?.path === "string" && typeof f.size === "number" && /^[0-9a-f]{64}$/.test(String(f.sha256)));
  if (!ok) throw new AppError("backup_corrupt", "The backup's manifest.json lacks required fields. Nothing was restored.");
  if ((m.format as number) > ARCHIVE_FORMAT)
    throw new AppError("backup_schema_newer", `The archive's format ${m.format} is newer than this Errata reads (${ARCHIVE_FORMAT}).`);
  return m as BackupManifest;
}

/**
 * Checks what was read from the archive against its manifest: the schema, then every file's size
 * and checksum. `seen` maps each archived path to what the reader measured.
 */
export function checkArchive(
  manifest: BackupManifest,
  seen: ReadonlyMap<string, { size: number; sha256: string }>,
  codeSchema: string,
): void {
  if (isNewerSchema(manifest.schema, codeSchema))
    throw new AppError(
      "backup_schema_newer",
      `The backup's schema ${manifest.schema} is newer than this Errata's ${codeSchema}: upgrade Errata, then restore. Nothing was restored.`,
    );
  for (const f of manifest.files) {
    const got = seen.get(f.path);
    if (!got) throw new AppError("backup_truncated", `The archive lacks ${f.path}, which its manifest lists. Nothing was restored.`);
    if (got.size !== f.size || got.sha256 !== f.sha256)
      throw new AppError("backup_corrupt", `${f.path} differs from the manifest (SHA-256 or size). Nothing was restored.`);
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const p of seen.keys()) {
    if (!listed.has(p))
      throw new AppError("backup_corrupt", `The archive holds ${p}, which its manifest does not list. Nothing was restored.`);
  }
}

/** Tables whose counts differ between the manifest and the restored copy (empty: they agree). */
export function countDifferences(expected: Record<string, number>, actual: Record<string, number>): string[] {
  return Object.keys(expected)
    .filter((t) => actual[t] !== expected[t])
    .map((t) => `${t}: ${actual[t] ?? "missing"} restored, ${expected[t]} in the backup`);
}

/** "12 organizations… " style summary of counts, for the restore's report. */
export function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
}
