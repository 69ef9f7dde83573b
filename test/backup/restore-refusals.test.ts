/**
 * A restore that must refuse changes nothing (issue 43): a corrupted archive (a file's bytes
 * changed; the gzip stream damaged), a truncated one, one from a newer schema, and a non-empty
 * target each fail with their catalogue code and exit code 2, leaving the target as it was.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase, tempDir } from "../helpers/test-db";
import { envOf, errata, errorCode } from "./helpers";

const cleanup: Array<() => Promise<void>> = [];
const withPostgres = await postgresAvailable();
let source: TestDatabase;
let work: string;
let archive: string;

/** Unpacks the archive, lets `edit` change the tree, packs it again (the order of the original). */
function repack(name: string, edit: (dir: string) => void): string {
  const dir = fs.mkdtempSync(path.join(work, "repack-"));
  execFileSync("tar", ["xzf", archive, "-C", dir]);
  const order = execFileSync("tar", ["tzf", archive]).toString().trim().split("\n");
  edit(dir);
  const out = path.join(work, name);
  execFileSync("tar", ["czf", out, "-C", dir, ...order]);
  return out;
}

/** A fresh restore target inside a folder of its own, and a check that nothing appeared there. */
function freshParent(): { parent: string; into: string; untouched(): void } {
  const parent = fs.mkdtempSync(path.join(work, "target-"));
  return {
    parent,
    into: path.join(parent, "data"),
    untouched: () => expect(fs.readdirSync(parent)).toEqual([]),
  };
}

beforeAll(async () => {
  work = tempDir("errata-refusals-");
  cleanup.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  source = await createTestDatabase("sqlite");
  cleanup.push(() => source.drop());
  const made = await errata(
    envOf(source),
    "user",
    "create",
    "--email",
    "r@example.com",
    "--password",
    "refusal-password-1",
    "--org",
    "refuse",
  );
  expect(made.code, made.stderr).toBe(0);
  archive = path.join(work, "good.tar.gz");
  const b = await errata(envOf(source), "backup", archive);
  expect(b.code, b.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
});

describe("restore refuses and changes nothing", () => {
  test("a file whose bytes differ from the manifest: backup_corrupt", async () => {
    const bad = repack("corrupt.tar.gz", (dir) => {
      const f = path.join(dir, "db", "errata.db");
      const bytes = fs.readFileSync(f);
      bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] as number) ^ 0xff;
      fs.writeFileSync(f, bytes);
    });
    const t = freshParent();
    const r = await errata(envOf(source), "restore", bad, "--into", t.into);
    expect([r.code, errorCode(r)]).toEqual([2, "backup_corrupt"]);
    t.untouched();
  });

  test("a damaged gzip stream: backup_corrupt", async () => {
    const bytes = fs.readFileSync(archive);
    for (let i = 200; i < 260; i++) bytes[i] = (bytes[i] as number) ^ 0x5a;
    const bad = path.join(work, "damaged.tar.gz");
    fs.writeFileSync(bad, bytes);
    const t = freshParent();
    const r = await errata(envOf(source), "restore", bad, "--into", t.into);
    expect(r.code).toBe(2);
    expect(["backup_corrupt", "backup_truncated"]).toContain(errorCode(r));
    t.untouched();
  });

  test("a truncated archive: backup_truncated", async () => {
    const bytes = fs.readFileSync(archive);
    const bad = path.join(work, "truncated.tar.gz");
    fs.writeFileSync(bad, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const t = freshParent();
    const r = await errata(envOf(source), "restore", bad, "--into", t.into);
    expect([r.code, errorCode(r)]).toEqual([2, "backup_truncated"]);
    t.untouched();
  });

  test("a newer schema than this code: backup_schema_newer", async () => {
    const bad = repack("newer.tar.gz", (dir) => {
      const f = path.join(dir, "manifest.json");
      const m = JSON.parse(fs.readFileSync(f, "utf8"));
      m.schema = "9999-from-the-future";
      fs.writeFileSync(f, JSON.stringify(m));
    });
    const t = freshParent();
    const r = await errata(envOf(source), "restore", bad, "--into", t.into);
    expect([r.code, errorCode(r)]).toEqual([2, "backup_schema_newer"]);
    t.untouched();
  });

  test("a non-empty data directory: restore_target_not_empty", async () => {
    const t = freshParent();
    fs.mkdirSync(t.into);
    fs.writeFileSync(path.join(t.into, "keep.txt"), "mine");
    const r = await errata(envOf(source), "restore", archive, "--into", t.into);
    expect([r.code, errorCode(r)]).toEqual([2, "restore_target_not_empty"]);
    expect(fs.readdirSync(t.parent)).toEqual(["data"]);
    expect(fs.readdirSync(t.into)).toEqual(["keep.txt"]);
    expect(fs.readFileSync(path.join(t.into, "keep.txt"), "utf8")).toBe("mine");
  });

  test.runIf(withPostgres)("PostgreSQL targets: non-empty, and corrupt into empty", async () => {
    const target = await createTestDatabase("postgres");
    cleanup.push(() => target.drop());
    const url = target.databaseUrl as string;
    const tables = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows.map(
          (r) => r.table_name,
        );
      } finally {
        await c.end();
      }
    };
    const bad = path.join(work, "corrupt.tar.gz");
    const corrupt = await errata(envOf(target), "restore", bad, "--into", url);
    expect([corrupt.code, errorCode(corrupt)]).toEqual([2, "backup_corrupt"]);
    expect(await tables()).toEqual([]);

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query("CREATE TABLE keep_me (v text); INSERT INTO keep_me VALUES ('mine')");
    await c.end();
    const r = await errata(envOf(target), "restore", archive, "--into", url);
    expect([r.code, errorCode(r)]).toEqual([2, "restore_target_not_empty"]);
    expect(await tables()).toEqual(["keep_me"]);
  });

  test.runIf(withPostgres)("a PostgreSQL backup without pg_dump on PATH: backup_tool_missing, no archive", async () => {
    const db = await createTestDatabase("postgres");
    cleanup.push(() => db.drop());
    const out = path.join(work, "no-tool", "pg.tar.gz");
    const r = await errata({ ...envOf(db), PATH: path.join(work, "no-such-bin") }, "backup", out);
    expect([r.code, errorCode(r)]).toEqual([2, "backup_tool_missing"]);
    expect(r.stderr).toMatch(/postgresql-client/);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
  });
});
