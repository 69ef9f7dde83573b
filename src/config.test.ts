import path from "node:path";
import { expect, test } from "vitest";
import { ConfigError, loadConfig, MiB } from "./config";

test("defaults: loopback:9000, SQLite in ./data/errata.db, all roles, SPEC limits", () => {
  const c = loadConfig({});
  expect(c.host).toBe("127.0.0.1");
  expect(c.port).toBe(9000);
  expect(c.publicUrl).toBe("http://127.0.0.1:9000");
  expect(c.database).toEqual({ kind: "sqlite", file: path.resolve("data/errata.db"), synchronous: "NORMAL" });
  expect(c.roles).toEqual(["web", "ingest", "worker"]);
  expect(c.limits).toMatchObject({
    maxCompressedBody: 20 * MiB,
    maxEnvelopeSize: 100 * MiB,
    maxEventSize: 1 * MiB,
    maxAttachmentSize: 20 * MiB,
  });
});

test("DATABASE_URL selects PostgreSQL; PUBLIC_URL https turns on secure cookies", () => {
  const c = loadConfig({ DATABASE_URL: "postgres://u@db:5432/errata", PUBLIC_URL: "https://errors.example.com/", PORT: "8080" });
  expect(c.database).toEqual({ kind: "postgres", url: "postgres://u@db:5432/errata" });
  expect(c.publicUrl).toBe("https://errors.example.com");
  expect(c.auth.secureCookies).toBe(true);
  expect(c.port).toBe(8080);
});

test("bad values fail fast with the variable's name", () => {
  expect(() => loadConfig({ PORT: "nine" })).toThrow(ConfigError);
  expect(() => loadConfig({ PORT: "nine" })).toThrow(/PORT/);
  expect(() => loadConfig({ ERRATA_ROLES: "web,cron" })).toThrow(/Unknown role "cron"/);
});

test("TRUSTED_PROXIES accepts addresses and CIDR ranges and names a bad entry", () => {
  expect(loadConfig({ TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, fd00::/8" }).trustedProxies).toBe("127.0.0.1, 10.0.0.0/8, fd00::/8");
  expect(() => loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8,proxy" })).toThrow(/TRUSTED_PROXIES: "proxy"/);
});
