/**
 * Scheduled backups (BACKUP_DIR / BACKUP_EVERY / BACKUP_KEEP) on the real server: the worker writes
 * an archive that restores, records the run, and the installation's Backups page shows the last
 * success with its size to an installation operator — and to nobody else.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { signInCookie } from "../helpers/server-actions";
import { createTestDatabase, tempDir } from "../helpers/test-db";
import { envOf, errata, open } from "./helpers";

describe("scheduled backups (SQLite)", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {});
  });

  test("the worker writes an archive, records it, and the Backups page shows it to operators only", async () => {
    const source = await createTestDatabase("sqlite");
    cleanup.push(() => source.drop());
    const dir = tempDir("errata-scheduled-");
    cleanup.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    // Stale archives of earlier runs: BACKUP_KEEP=1 leaves only the new one.
    fs.writeFileSync(path.join(dir, "errata-backup-20200101T000000Z.tar.gz"), "old");
    fs.writeFileSync(path.join(dir, "unrelated.txt"), "kept");
    const made = await errata(
      envOf(source),
      "user",
      "create",
      "--email",
      "op@example.com",
      "--password",
      "operator-pass-1",
      "--org",
      "first",
    );
    expect(made.code, made.stderr).toBe(0);
    await errata(envOf(source), "user", "create", "--email", "other@example.com", "--password", "other-pass-12", "--org", "second");
    const server: TestServer = await startServer({
      db: source,
      env: { LOG_LEVEL: "error", BACKUP_DIR: dir, BACKUP_EVERY: "12h", BACKUP_KEEP: "1", RETENTION_FIRST_RUN_DELAY_MS: "0" },
    });
    cleanup.push(() => server.stop());

    const archives = () => fs.readdirSync(dir).filter((n) => /^errata-backup-.*\.tar\.gz$/.test(n));
    const run = await eventually(
      async () => {
        const db = open(source);
        try {
          return await db.kysely.selectFrom("backup_runs").selectAll().where("ok", "=", 1).executeTakeFirst();
        } finally {
          await db.close();
        }
      },
      60_000,
      "a successful scheduled backup",
    );
    expect(run.trigger).toBe("scheduled");
    await eventually(
      async () => archives().length === 1 && !archives().includes("errata-backup-20200101T000000Z.tar.gz"),
      20_000,
      "pruning",
    );
    expect(fs.existsSync(path.join(dir, "unrelated.txt"))).toBe(true);
    const archive = path.join(dir, archives()[0] as string);
    expect(run.path).toBe(archive);
    expect(Number(run.size)).toBe(fs.statSync(archive).size);

    // The archive restores.
    const target = tempDir("errata-scheduled-restore-");
    cleanup.push(async () => fs.rmSync(target, { recursive: true, force: true }));
    const restored = await errata(envOf(source), "restore", archive, "--into", target);
    expect(restored.code, restored.stderr).toBe(0);

    // The page: the operator (owner of the first organization) sees the run; another owner does not.
    const op = await signInCookie(server, "op@example.com", "operator-pass-1");
    const page = await fetch(`${server.url}/first/settings/backups`, { headers: { cookie: op } });
    expect(page.status).toBe(200);
    const html = (await page.text()).replace(/<!-- -->/g, "");
    expect(html).toContain('data-testid="backup-last-success"');
    expect(html).toContain(archive);
    expect(html).toContain("every 12h");
    const settings = await (await fetch(`${server.url}/first/settings/members`, { headers: { cookie: op } })).text();
    expect(settings).toContain("/first/settings/backups");
    const other = await signInCookie(server, "other@example.com", "other-pass-12");
    expect((await fetch(`${server.url}/second/settings/backups`, { headers: { cookie: other } })).status).toBe(404);
    const otherSettings = await (await fetch(`${server.url}/second/settings/members`, { headers: { cookie: other } })).text();
    expect(otherSettings).not.toContain("/second/settings/backups");
  }, 180_000);
});
