import { describe, expect, it } from "vitest";
import { isAppError } from "../errors";
import { type BackupManifest, checkArchive, countDifferences, isNewerSchema, parseManifest } from "./manifest";
import { BLOCK, decodeHeader, encodeHeader, paddingOf } from "./tar-header";

const SHA = "a".repeat(64);
const manifest = (over: Partial<BackupManifest> = {}): BackupManifest => ({
  format: 1,
  errataVersion: "0.1.0",
  schema: "0054-backup-runs",
  dialect: "sqlite",
  createdAt: "2026-11-28T00:00:00.000Z",
  counts: { events: 3 },
  files: [{ path: "db/errata.db", size: 10, sha256: SHA }],
  ...over,
});

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    return isAppError(err) ? err.code : "not an AppError";
  }
  return undefined;
}

describe("backup manifest checks", () => {
  it("accepts an archive whose files match", () => {
    expect(
      codeOf(() => checkArchive(manifest(), new Map([["db/errata.db", { size: 10, sha256: SHA }]]), "0054-backup-runs")),
    ).toBeUndefined();
  });

  it("an older schema is restored (then migrated); a newer one refused", () => {
    expect(isNewerSchema("0053-audit-log", "0054-backup-runs")).toBe(false);
    expect(isNewerSchema("0060-later", "0054-backup-runs")).toBe(true);
    const seen = new Map([["db/errata.db", { size: 10, sha256: SHA }]]);
    expect(codeOf(() => checkArchive(manifest({ schema: "0053-audit-log" }), seen, "0054-backup-runs"))).toBeUndefined();
    expect(codeOf(() => checkArchive(manifest({ schema: "0099-future" }), seen, "0054-backup-runs"))).toBe("backup_schema_newer");
  });

  it("a checksum or size mismatch is corruption, a missing file truncation, an unlisted file corruption", () => {
    expect(codeOf(() => checkArchive(manifest(), new Map([["db/errata.db", { size: 10, sha256: "b".repeat(64) }]]), "0054-x"))).toBe(
      "backup_corrupt",
    );
    expect(codeOf(() => checkArchive(manifest(), new Map([["db/errata.db", { size: 9, sha256: SHA }]]), "0054-x"))).toBe("backup_corrupt");
    expect(codeOf(() => checkArchive(manifest(), new Map(), "0054-x"))).toBe("backup_truncated");
    const extra = new Map([
      ["db/errata.db", { size: 10, sha256: SHA }],
      ["blobs/x", { size: 1, sha256: SHA }],
    ]);
    expect(codeOf(() => checkArchive(manifest(), extra, "0054-x"))).toBe("backup_corrupt");
  });

  it("parses a manifest and refuses what is not one", () => {
    expect(parseManifest(JSON.stringify(manifest())).schema).toBe("0054-backup-runs");
    expect(codeOf(() => parseManifest("{not json"))).toBe("backup_corrupt");
    expect(codeOf(() => parseManifest(JSON.stringify({ ...manifest(), dialect: "mysql" })))).toBe("backup_corrupt");
    expect(codeOf(() => parseManifest(JSON.stringify({ ...manifest(), files: [{ path: "x", size: 1, sha256: "short" }] })))).toBe(
      "backup_corrupt",
    );
    expect(codeOf(() => parseManifest(JSON.stringify({ ...manifest(), format: 2 })))).toBe("backup_schema_newer");
  });

  it("names the tables whose counts differ", () => {
    expect(countDifferences({ events: 3, issues: 1 }, { events: 3, issues: 1 })).toEqual([]);
    expect(countDifferences({ events: 3, issues: 1 }, { events: 2 })).toEqual([
      "events: 2 restored, 3 in the backup",
      "issues: missing restored, 1 in the backup",
    ]);
  });
});

describe("tar headers", () => {
  it("round-trip names (long ones through the prefix), sizes (past 8 GiB too) and times", () => {
    const long = `blobs/replays/12/${"f".repeat(32)}/${"d".repeat(80)}/0`;
    for (const h of [
      { name: "manifest.json", size: 915, mtime: 1_790_000_000 },
      { name: long, size: 3, mtime: 0 },
      { name: "db/errata.db", size: 9 * 1024 ** 3, mtime: 1 },
    ]) {
      const block = encodeHeader(h);
      expect(block.length).toBe(BLOCK);
      expect(decodeHeader(block)).toEqual({ ...h, type: "0" });
    }
  });

  it("an all-zero block ends the archive; a damaged header is refused", () => {
    expect(decodeHeader(Buffer.alloc(BLOCK))).toBeNull();
    const block = encodeHeader({ name: "a", size: 1, mtime: 0 });
    block[0] = 0x62;
    expect(() => decodeHeader(block)).toThrow(/checksum/);
  });

  it("pads data to whole blocks", () => {
    expect([paddingOf(0), paddingOf(1), paddingOf(512), paddingOf(513)]).toEqual([0, 511, 0, 511]);
  });
});
