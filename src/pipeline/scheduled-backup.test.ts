import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pruneArchives } from "./scheduled-backup";

describe("pruneArchives", () => {
  it("keeps the newest dated archives and leaves other files alone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-prune-"));
    try {
      const names = [
        "errata-backup-20261101T000000Z.tar.gz",
        "errata-backup-20261102T000000Z.tar.gz",
        "errata-backup-20261103T000000Z.tar.gz",
      ];
      for (const n of [...names, "notes.txt", "errata-backup-20261104T000000Z.tar.gz.partial"]) fs.writeFileSync(path.join(dir, n), "x");
      expect(await pruneArchives(dir, 2)).toBe(1);
      expect(fs.readdirSync(dir).sort()).toEqual([...names.slice(1), "errata-backup-20261104T000000Z.tar.gz.partial", "notes.txt"].sort());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
