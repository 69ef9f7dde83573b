import { describe, expect, test } from "vitest";
import { isStorageUnavailable } from "./storage-health";

describe("isStorageUnavailable", () => {
  test("locks, read-only files, full disks and lost PostgreSQL connections; not request errors", () => {
    for (const code of [
      "SQLITE_BUSY",
      "SQLITE_BUSY_SNAPSHOT",
      "SQLITE_READONLY",
      "SQLITE_IOERR_WRITE",
      "SQLITE_FULL",
      "57P01",
      "ECONNREFUSED",
    ])
      expect(isStorageUnavailable(Object.assign(new Error("x"), { code }))).toBe(true);
    expect(isStorageUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    for (const e of [new Error("boom"), Object.assign(new Error("x"), { code: "SQLITE_CONSTRAINT_UNIQUE" }), { code: "23505" }, null, "x"])
      expect(isStorageUnavailable(e)).toBe(false);
  });
});
