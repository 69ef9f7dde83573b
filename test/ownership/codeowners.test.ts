/**
 * CODEOWNERS on both databases, through the services the REST routes and the settings page call:
 * a file posted in Sentry's shape, its handles mapped to a team and a member, unmatched names
 * answered (never dropped), the mapped team auto-assigned a new issue whose frame the file owns and
 * mailed by a rule to issue owners (real SMTP server); a written ownership rule takes precedence;
 * a 1 MB file and a bad line are refused with nothing stored; a viewer cannot post.
 */
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { deliverDue } from "../../src/pipeline/alerts/delivery-loop";
import type { SendDeps } from "../../src/pipeline/alerts/send-notification";
import { type AlertWorld, createAlertWorld } from "../alerts/helpers";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects } from "../helpers/test-db";
import { codeOf } from "../lifecycle/helpers";
import { silentLog } from "../pipeline/helpers";

const recipients = (m: ParsedMail | undefined) =>
  (Array.isArray(m?.to) ? m.to : [m?.to]).flatMap((a) => a?.value.map((v) => v.address) ?? []).sort();

describe.each(await dialects())("CODEOWNERS on %s", (dialect) => {
  let w: AlertWorld;
  let smtp: SmtpInbox;
  let deps: SendDeps;

  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    smtp = await startSmtpInbox();
    const config = loadConfig({ SMTP_HOST: "127.0.0.1", SMTP_PORT: String(smtp.port), SMTP_FROM: "Errata <alerts@errata.test>" });
    deps = { db: w.db, alerts: config.alerts, smtp: config.smtp, publicUrl: "https://errata.example", now: () => w.clock.now };
    await w.services.teams.create(w.owner, "acme", { name: "payments" });
    for (const v of [w.owner, w.admin, w.viewer]) await w.services.teams.setMember(w.owner, "acme", "payments", v.userId, false);
    await w.services.teams.setMember(w.owner, "acme", "payments", w.member.userId, true);
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.close();
  });

  const FILE = [
    "# GitHub syntax",
    "*.js @acme/web",
    "/src/checkout/ @acme/payments @ghost",
    "[Docs] @docs",
    "docs/",
    "guide/ admin@example.com",
  ].join("\n");

  test("bad input stores nothing: 1 MB, a bad owner, a viewer", async () => {
    const huge = `${FILE}\n${"# padding\n".repeat(105_000)}`;
    expect(huge.length).toBeGreaterThan(1_000_000);
    await expect(w.services.codeowners.save(w.admin, "acme", "web", { raw: huge })).rejects.toMatchObject({
      code: "payload_too_large",
      status: 413,
      message: expect.stringContaining("Nothing was saved"),
    });
    await expect(w.services.codeowners.save(w.admin, "acme", "web", { raw: "src/ @ok\nlib/ not-an-owner" })).rejects.toMatchObject({
      code: "validation_failed",
      fields: [expect.objectContaining({ field: "raw.2" })],
    });
    expect(await codeOf(w.services.codeowners.save(w.viewer, "acme", "web", { raw: FILE }))).toBe("forbidden");
    expect(await w.services.codeowners.list(w.admin, "acme", "web")).toEqual([]);
  });

  test("posted in Sentry's shape; unmatched names answered and listed until mapped", async () => {
    const { created, file } = await w.services.codeowners.save(w.admin, "acme", "web", { raw: FILE, codeMappingId: "12" });
    expect(created).toBe(true);
    expect(file).toMatchObject({
      raw: FILE,
      codeMappingId: "12",
      provider: "github",
      ownershipSyntax: expect.stringContaining("codeowners:/src/checkout/ @acme/payments @ghost"),
      errors: {
        missing_external_teams: ["@acme/web", "@acme/payments"],
        missing_external_users: ["@ghost", "@docs"],
        missing_user_emails: [],
      },
    });
    // posting for the same code mapping replaces its file
    expect((await w.services.codeowners.save(w.admin, "acme", "web", { raw: FILE, codeMappingId: "12" })).created).toBe(false);

    await w.services.codeowners.mapName(w.admin, "acme", { externalName: "@acme/payments", provider: "github", teamSlug: "payments" });
    await w.services.codeowners.mapName(w.admin, "acme", { externalName: "@Docs", provider: "gitlab", userEmail: "viewer@example.com" });
    expect(await codeOf(w.services.codeowners.mapName(w.admin, "acme", { externalName: "@x", teamSlug: "nope" }))).toBe(
      "validation_failed",
    );
    expect(await codeOf(w.services.codeowners.mapName(w.member, "acme", { externalName: "@x", teamSlug: "payments" }))).toBe("forbidden");

    const page = await w.services.codeowners.page(w.admin, "acme", "web");
    expect(page.handles).toEqual([
      { name: "@acme/web", target: null, mappingId: null },
      { name: "@acme/payments", target: "#payments", mappingId: expect.any(String) },
      { name: "@ghost", target: null, mappingId: null },
      { name: "@docs", target: "viewer@example.com", mappingId: expect.any(String) },
    ]);
    const [listed] = await w.services.codeowners.list(w.member, "acme", "web");
    expect(listed?.errors).toMatchObject({ missing_external_teams: ["@acme/web"], missing_external_users: ["@ghost"] });
  });

  test("the mapped team is assigned and mailed for a checkout frame; a written rule takes precedence", async () => {
    const rule = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "owners",
      triggers: { newIssue: true },
      targets: [{ type: "issue_owners", fallthrough: "no_one" }],
    });
    await w.sendEvents({ message: "cart lost", filename: "/srv/web/src/checkout/cart.js" });
    await deliverDue(w.db, deps, silentLog);
    expect(recipients(smtp.mails.find((m) => m.subject?.includes("cart lost")))).toEqual(["member@example.com"]);
    const issue = await w.issueOf("cart lost");
    const owners = await w.services.ownership.forIssue(w.admin, "acme", issue);
    expect(owners.owners[0]).toMatchObject({ rule: "codeowners:/src/checkout/ @acme/payments @ghost" });
    const detail = await w.services.issues.get(w.admin, "acme", issue);
    expect(JSON.stringify(detail)).toContain("payments");

    await w.services.ownership.update(w.owner, "acme", "web", { raw: "path:*/checkout/* owner@example.com" });
    await w.sendEvents({ message: "cart gone", filename: "/srv/web/src/checkout/cart.js" });
    await deliverDue(w.db, deps, silentLog);
    expect(recipients(smtp.mails.find((m) => m.subject?.includes("cart gone")))).toEqual(["owner@example.com"]);
    await w.services.alerts.deleteRule(w.admin, "acme", "web", rule.id);
  });
});
