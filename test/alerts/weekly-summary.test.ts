/**
 * The weekly summary email on both databases, sent through the real SMTP path to a server the test
 * starts (smtp-server + mailparser), the job triggered directly with a chosen "now" (no waiting):
 * members of the project's team get one email each with plain text and HTML (new issues,
 * regressions, busiest issues, crash-free per release; event text escaped in the HTML); a member
 * on no team and one who turned it off get none; running again in the same week (a restart) sends
 * nothing; the scheduled job runs once per interval; a failed send is retried next run. Who hears
 * about a project is who may see it: an admin on no team does (admins see every project), and
 * everyone does while the organization has no team.
 */
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig, type SmtpConfig } from "../../src/config";
import { runWeeklySummary, runWeeklySummaryJob } from "../../src/pipeline/weekly-summary";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects } from "../helpers/test-db";
import { DAY, MINUTE } from "../lifecycle/helpers";
import { silentLog } from "../pipeline/helpers";
import { type AlertWorld, createAlertWorld } from "./helpers";

const to = (m: ParsedMail) => (Array.isArray(m.to) ? m.to : [m.to]).flatMap((a) => a?.value.map((v) => v.address) ?? []);

describe.each(await dialects())("weekly summary on %s", (dialect) => {
  let w: AlertWorld;
  let smtp: SmtpInbox;
  let config: SmtpConfig;
  // T0 (the world's clock) is Sunday 2026-03-01 12:00 UTC: the summary sent on Monday covers its week.
  const MONDAY = Date.UTC(2026, 2, 2, 6, 0, 0);

  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    smtp = await startSmtpInbox();
    config = loadConfig({ SMTP_HOST: "127.0.0.1", SMTP_PORT: String(smtp.port), SMTP_FROM: "Errata <summary@errata.test>" })
      .smtp as SmtpConfig;
    await w.services.teams.create(w.owner, "acme", { name: "web-team" });
    for (const v of [w.owner, w.admin, w.viewer]) await w.services.teams.setMember(w.owner, "acme", "web-team", v.userId, false);
    for (const v of [w.member, w.admin, w.owner]) await w.services.teams.setMember(w.owner, "acme", "web-team", v.userId, true);
    await w.services.teams.setProject(w.owner, "acme", "web-team", "web", true);
    await w.services.weeklySummary.setEnabled(w.owner, false);
    // the viewer is on no team: nothing to tell them (the first, default team may hold them)
    for (const t of await w.db.kysely.selectFrom("teams").select("slug").execute())
      if (t.slug !== "web-team") await w.services.teams.setMember(w.owner, "acme", t.slug, w.viewer.userId, false);

    w.clock.now -= 2 * DAY; // Friday
    await w.sendEvents({ message: "old <b>bug</b>" });
    const old = await w.issueOf("old <b>bug</b>");
    await w.services.issueActions.update(w.admin, "acme", old, { status: "resolved" });
    w.clock.now += DAY;
    await w.sendEvents(
      { message: "old <b>bug</b>" },
      { message: "checkout fails" },
      { message: "checkout fails" },
      { message: "checkout fails" },
    );
    w.clock.now += DAY; // Sunday, T0
    await w.sendEvents({ message: "search slow" });
    await w.sendSessions(
      { release: "web@1.2.0" },
      { release: "web@1.2.0" },
      { release: "web@1.2.0" },
      { release: "web@1.2.0", end: "crashed" },
    );
    w.clock.now += 10 * MINUTE;
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.close();
  });

  test("team members get one email with text and HTML; no team or turned off: none; a second run sends nothing", async () => {
    const run = await runWeeklySummary({ db: w.db, smtp: config, publicUrl: "https://errata.example", log: silentLog, now: MONDAY });
    expect(run).toMatchObject({ week: { start: Date.UTC(2026, 1, 23), end: Date.UTC(2026, 2, 2) }, sent: 2, failed: 0 });
    expect(smtp.mails.flatMap(to).sort()).toEqual(["admin@example.com", "member@example.com"]);
    const mail = smtp.mailsTo("member@example.com")[0] as ParsedMail;
    expect(mail.subject).toBe("[Errata] acme: week of 2026-02-23 — 3 new issues, 1 regression");
    expect(mail.text).toContain("== web (web) ==");
    expect(mail.text).toContain("New issues: 3");
    expect(mail.text).toContain("Regressions: 1");
    expect(mail.text).toMatch(/WEB-\d+ AlertError: checkout fails — 3 events {2}https:\/\/errata\.example\/acme\/issues\/\d+/);
    expect(mail.text).toContain("web@1.2.0: 75.00% of 4 sessions");
    expect(mail.text).toContain("https://errata.example/account#weekly-summary");
    expect(mail.html).toContain("AlertError: old &lt;b&gt;bug&lt;/b&gt;");
    expect(mail.html).not.toContain("<b>bug</b>");
    expect(mail.html).toContain("<td>web@1.2.0</td>");

    const again = await runWeeklySummary({
      db: w.db,
      smtp: config,
      publicUrl: "https://errata.example",
      log: silentLog,
      now: MONDAY + 3_600_000,
    });
    expect(again.sent).toBe(0);
    expect(smtp.mails).toHaveLength(2);
  });

  test("the scheduled job runs once per interval; the next week sends again; members can turn it off", async () => {
    const nextMonday = MONDAY + 7 * DAY;
    await w.services.weeklySummary.setEnabled(w.admin, false);
    expect(await w.services.weeklySummary.enabled(w.admin)).toBe(false);
    const first = await runWeeklySummaryJob({
      db: w.db,
      smtp: config,
      publicUrl: "https://errata.example",
      log: silentLog,
      now: nextMonday,
    });
    // nothing happened in the week of 2026-03-02 (the events are a week older): nobody is mailed about it
    expect(first).toMatchObject({ sent: 0 });
    expect(
      await runWeeklySummaryJob({ db: w.db, smtp: config, publicUrl: "https://errata.example", log: silentLog, now: nextMonday + MINUTE }),
    ).toBeNull();
    expect(smtp.mails).toHaveLength(2);
  });

  test("a failed send releases its claim: the next run sends it", async () => {
    w.clock.now = MONDAY + 7 * DAY + DAY;
    await w.sendEvents({ message: "new week" });
    const later = MONDAY + 14 * DAY;
    const down = { ...config, port: 1 };
    const failed = await runWeeklySummary({
      db: w.db,
      smtp: down,
      publicUrl: "https://errata.example",
      log: silentLog,
      now: later,
      timeoutMs: 2_000,
    });
    expect(failed).toMatchObject({ sent: 0, failed: 1 });
    const retried = await runWeeklySummary({ db: w.db, smtp: config, publicUrl: "https://errata.example", log: silentLog, now: later });
    expect(retried).toMatchObject({ sent: 1, failed: 0 });
    expect(to(smtp.mails.at(-1) as ParsedMail)).toEqual(["member@example.com"]);
  });

  test("who may see a project hears about it: an admin on no team; everyone while the org has no team", async () => {
    await w.services.weeklySummary.setEnabled(w.admin, true);
    await w.services.teams.setMember(w.owner, "acme", "web-team", w.admin.userId, false);
    w.clock.now = MONDAY + 15 * DAY;
    await w.sendEvents({ message: "third week" });
    const third = await runWeeklySummary({
      db: w.db,
      smtp: config,
      publicUrl: "https://errata.example",
      log: silentLog,
      now: MONDAY + 21 * DAY,
    });
    expect(third).toMatchObject({ sent: 2, failed: 0 });
    expect(smtp.mails.slice(-2).flatMap(to).sort()).toEqual(["admin@example.com", "member@example.com"]);
    expect(smtp.mailsTo("admin@example.com").at(-1)?.text).toContain("== web (web) ==");

    // without teams every member sees every project: the viewer, on no team, hears about it too
    for (const t of await w.db.kysely.selectFrom("teams").select("slug").execute()) await w.services.teams.remove(w.owner, "acme", t.slug);
    w.clock.now = MONDAY + 22 * DAY;
    await w.sendEvents({ message: "fourth week" });
    const fourth = await runWeeklySummary({
      db: w.db,
      smtp: config,
      publicUrl: "https://errata.example",
      log: silentLog,
      now: MONDAY + 28 * DAY,
    });
    expect(fourth).toMatchObject({ sent: 3, failed: 0 });
    expect(smtp.mails.slice(-3).flatMap(to).sort()).toEqual(["admin@example.com", "member@example.com", "viewer@example.com"]);
  });
});
