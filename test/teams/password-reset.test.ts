/**
 * "Forgot password" on both databases, mailed through a real SMTP server (smtp-server, parsed with
 * mailparser): the same answer for known and unknown addresses, the link stored only as a hash,
 * single use (a second link of the account dies with the first), expiry, a per-account cap on
 * mail, and the reset ends every session of the account. An account made through SSO (no
 * password) gets one.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithoutPassword, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { Db } from "../../src/storage/db";
import { eventually } from "../helpers/server";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

let smtp: SmtpInbox;
beforeAll(async () => {
  smtp = await startSmtpInbox();
});
afterAll(async () => smtp.close());
const mailsTo = (address: string) => smtp.mailsTo(address);

async function nextLink(address: string, count: number): Promise<string> {
  await eventually(async () => mailsTo(address).length >= count, 20_000, `reset mail #${count} to ${address}`);
  const link = mailsTo(address)[count - 1]?.text?.match(/https:\/\/errata\.example\/reset-password\/(\S+)/);
  if (!link) throw new Error(`no reset link to ${address}`);
  return link[1] as string;
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("password reset by email on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: ReturnType<typeof createServices>;
  let auth: ReturnType<typeof createAuth>;
  let clock = Date.UTC(2026, 4, 10, 12, 0, 0);

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({
      DATA_DIR: tempDir(),
      LOG_LEVEL: "silent",
      PUBLIC_URL: "https://errata.example",
      ...smtp.env,
    });
    auth = createAuth(db, config, "x".repeat(32));
    await migrateAuth(db, config, "x".repeat(32));
    s = createServices({ db, auth, config, log: createLogger("silent"), now: () => clock });
  });
  afterAll(async () => close());

  async function signIn(email: string, password: string): Promise<string | null> {
    const res = await auth.api.signInEmail({ body: { email, password }, asResponse: true });
    return res.ok ? res.headers.get("set-cookie") : null;
  }
  const sessionOf = async (cookie: string) => auth.api.getSession({ headers: new Headers({ cookie }) });

  test("the link is mailed, stored hashed, works once, and ends every session of the account", async () => {
    const address = `rita-${dialect}@example.com`;
    await createUserWithPassword(auth, { email: address, password: "the old password 1", name: "Rita" });
    const cookie = await signIn(address, "the old password 1");
    expect(cookie).not.toBeNull();
    expect(await sessionOf(cookie as string)).not.toBeNull();

    // Known and unknown addresses get the same (empty) answer; only the known one gets mail.
    await s.passwordReset.request(address.toUpperCase());
    await s.passwordReset.request(`nobody-${dialect}@example.com`);
    const token = await nextLink(address, 1);
    expect(mailsTo(`nobody-${dialect}@example.com`)).toHaveLength(0);
    expect(mailsTo(address)[0]?.subject).toBe("Reset your Errata password");

    const rows = await db.kysely.selectFrom("password_resets").select(["token_hash", "user_id"]).execute();
    expect(rows.map((r) => r.token_hash)).toContain(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);

    // A second link of the same account dies when the first is used.
    await s.passwordReset.request(address);
    const second = await nextLink(address, 2);
    expect(await s.passwordReset.check(token)).toEqual({ email: address });
    expect(await codeOf(s.passwordReset.reset(token, "short"))).toBe("validation_failed");
    expect(await s.passwordReset.reset(token, "a brand new password")).toEqual({ email: address });

    expect(await sessionOf(cookie as string)).toBeNull();
    expect(await signIn(address, "the old password 1")).toBeNull();
    expect(await signIn(address, "a brand new password")).not.toBeNull();
    expect(await codeOf(s.passwordReset.reset(token, "another new password"))).toBe("reset_invalid");
    expect(await codeOf(s.passwordReset.check(second))).toBe("reset_invalid");
    expect(await codeOf(s.passwordReset.reset("not-a-real-token", "another new password"))).toBe("reset_invalid");
  });

  test("links expire, and at most three are mailed per account per hour", async () => {
    const address = `ed-${dialect}@example.com`;
    const ed = await createUserWithPassword(auth, { email: address, password: "the old password 2", name: "Ed" });
    await s.passwordReset.request(address);
    const token = await nextLink(address, 1);
    clock += 61 * 60_000;
    expect(await codeOf(s.passwordReset.check(token))).toBe("reset_invalid");
    expect(await codeOf(s.passwordReset.reset(token, "a brand new password"))).toBe("reset_invalid");

    for (let i = 0; i < 5; i++) await s.passwordReset.request(address);
    await nextLink(address, 4);
    const rows = await db.kysely.selectFrom("password_resets").select("id").where("user_id", "=", ed.id).execute();
    expect(rows).toHaveLength(4); // one expired + three in this hour
    expect(mailsTo(address)).toHaveLength(4);
  });

  test("an account made through SSO (no password) can set one", async () => {
    const address = `sso-${dialect}@example.com`;
    await createUserWithoutPassword(auth, { email: address, name: "Sso" });
    expect(await signIn(address, "a password for sso")).toBeNull();
    await s.passwordReset.request(address);
    await s.passwordReset.reset(await nextLink(address, 1), "a password for sso");
    expect(await signIn(address, "a password for sso")).not.toBeNull();
  });
});
