/**
 * Delivery on both databases: each channel's body as a real receiving server sees it (node:http
 * receivers, smtp-server + mailparser for email), the generic webhook's HMAC signature, retries
 * with backoff honouring Discord's retry_after, permanent failures, and the outbound policy
 * (private addresses refused by default, allowed by the installation's settings).
 */
import { createHmac } from "node:crypto";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { deliverDue } from "../../src/pipeline/alerts/delivery-loop";
import type { SendDeps } from "../../src/pipeline/alerts/send-notification";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects } from "../helpers/test-db";
import { silentLog } from "../pipeline/helpers";
import { type AlertWorld, createAlertWorld, type Received, startReceiver } from "./helpers";

describe.each(await dialects())("alert delivery on %s", (dialect) => {
  let w: AlertWorld;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: SmtpInbox;
  let deps: SendDeps;
  const byPath = (p: string) => rx.received.filter((r) => r.path.startsWith(p));
  const json = (r: Received | undefined) => JSON.parse(r?.body ?? "null");

  beforeAll(async () => {
    // SMTP configured: the project's default rule e-mails its members
    w = await createAlertWorld(dialect, { SMTP_HOST: "127.0.0.1" });
    let discordCalls = 0;
    rx = await startReceiver((r) => {
      if (r.path === "/discord") {
        discordCalls += 1;
        if (discordCalls === 1) return { status: 429, body: '{"message":"You are being rate limited.","retry_after":2.5,"global":false}' };
        return { status: 204 };
      }
      if (r.path === "/always-500") return { status: 500, body: "broken" };
      if (r.path === "/gone") return { status: 410, body: "no such hook" };
      if (r.path.startsWith("/telegram/bot")) return { status: 200, body: '{"ok":true,"result":{"message_id":1}}' };
      return { status: 200, body: "ok" };
    });
    smtp = await startSmtpInbox();
    const config = loadConfig({
      ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true",
      ALERTS_BACKOFF_MS: "1000",
      ALERTS_TIMEOUT_MS: "5000",
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(smtp.port),
      SMTP_FROM: "Errata <alerts@errata.test>",
    });
    deps = { db: w.db, alerts: config.alerts, smtp: config.smtp, publicUrl: "https://errata.example", now: () => w.clock.now };
  });
  afterAll(async () => {
    await rx?.close();
    await smtp?.close();
    await w?.close();
  });

  const channel = async (kind: string, config: Record<string, unknown>) =>
    (await w.services.alerts.createChannel(w.admin, "acme", "web", { kind, name: kind, config })).id;
  const drainOutbox = async () => {
    while ((await deliverDue(w.db, deps, silentLog)) > 0) {}
  };

  test("every channel gets a readable message; the email goes to members who did not opt out", async () => {
    const ids = [
      await channel("webhook", { url: `${rx.url}/generic`, secret: "s3cret-signing-key" }),
      await channel("slack", { url: `${rx.url}/slack` }),
      await channel("teams", { url: `${rx.url}/teams` }),
      await channel("mattermost", { url: `${rx.url}/mattermost` }),
      await channel("googlechat", { url: `${rx.url}/gchat` }),
      await channel("ntfy", { url: `${rx.url}/errata-alerts` }),
      await channel("telegram", { url: `${rx.url}/telegram`, botToken: "123456:ABC-def", chatId: "-10042" }),
    ];
    await w.services.alerts.createRule(w.admin, "acme", "web", { name: "all", triggers: { newIssue: true }, channelIds: ids });
    await w.services.alerts.setEmailOptOut(w.member, "acme", "web", true);
    await w.sendEvents({ message: "<b>boom</b> @everyone", environment: "production", release: "2.0.0", tags: { browser: "Firefox 120" } });
    await drainOutbox();

    const generic = byPath("/generic")[0];
    const g = json(generic);
    expect(g).toMatchObject({
      version: 1,
      url: expect.stringMatching(/^https:\/\/errata\.example\/acme\/issues\/\d+$/),
      message: {
        kind: "alert",
        trigger: "new_issue",
        issue: { title: "AlertError: <b>boom</b> @everyone", level: "error" },
        event: { release: "2.0.0" },
      },
    });
    const ts = String(generic?.headers["x-errata-timestamp"]);
    const expected = createHmac("sha256", "s3cret-signing-key").update(`${ts}.${generic?.body}`).digest("hex");
    expect(generic?.headers["x-errata-signature"]).toBe(`sha256=${expected}`);
    expect(generic?.headers["x-errata-delivery"]).toBe(g.delivery_id);
    expect(generic?.headers["idempotency-key"]).toBe(g.delivery_id);

    const slack = json(byPath("/slack")[0]);
    expect(slack.blocks[0]).toMatchObject({ type: "header", text: { type: "plain_text" } });
    expect(slack.text).toContain("&lt;b&gt;boom&lt;/b&gt;");
    expect(JSON.stringify(slack.blocks)).toContain("handle__b_boom__b___everyone (src/handler.ts:42)");
    expect(slack.blocks.at(-1).elements[0].url).toMatch(/^https:\/\/errata\.example\/acme\/issues\/\d+$/);

    const teams = json(byPath("/teams")[0]);
    expect(teams.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(teams.attachments[0].content.body.find((b: { type: string }) => b.type === "FactSet").facts).toContainEqual({
      title: "Release",
      value: "2.0.0",
    });

    const mm = json(byPath("/mattermost")[0]);
    expect(mm.attachments[0].title_link).toMatch(/errata\.example/);
    expect(mm.text).toContain("@\u200beveryone");

    const chat = json(byPath("/gchat")[0]);
    // the header is plain text; widget text understands HTML, so nothing from the event is markup there
    expect(chat.cardsV2[0].card.header.title).toBe("New issue in web: AlertError: <b>boom</b> @everyone");
    expect(JSON.stringify(chat.cardsV2[0].card.sections)).not.toContain("<b>");
    expect(chat.text).not.toContain("<b>");

    const ntfy = json(byPath("/")?.find((r) => r.path === "/"));
    expect(ntfy).toMatchObject({ topic: "errata-alerts", click: expect.stringMatching(/errata\.example/) });

    const tg = byPath("/telegram/bot123456:ABC-def/sendMessage")[0];
    expect(json(tg)).toMatchObject({ chat_id: "-10042", text: expect.stringContaining("<b>boom</b>") });
    expect(json(tg).parse_mode).toBeUndefined();

    // the default rule's email: every member but the one who opted out
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0] as ParsedMail;
    const to = (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((a) => a?.value.map((v) => v.address));
    expect(to.sort()).toEqual(["admin@example.com", "owner@example.com", "viewer@example.com"]);
    expect(mail.subject).toBe("[Errata] New issue in web: AlertError: <b>boom</b> @everyone");
    expect(mail.text).toContain("Release: 2.0.0");
    expect(mail.text).toContain("at handle__b_boom__b___everyone (src/handler.ts:42)");
    expect(mail.text).toMatch(/https:\/\/errata\.example\/acme\/issues\/\d+/);
    expect(mail.html).toContain("&lt;b&gt;boom&lt;/b&gt;");
    expect(mail.html).not.toContain("<b>boom</b>");
    expect(mail.messageId).toMatch(/@errata>$/);

    const log = await w.services.alerts.deliveries(w.viewer, "acme", "web");
    expect(log.filter((d) => d.status === "sent")).toHaveLength(8);
  });

  test("Discord's 429 retry_after is honoured; server errors are retried 3 times; a 4xx fails at once", async () => {
    const discord = await channel("discord", { url: `${rx.url}/discord` });
    const broken = await channel("webhook", { url: `${rx.url}/always-500` });
    const gone = await channel("slack", { url: `${rx.url}/gone` });
    await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "retry",
      triggers: { newIssue: true },
      channelIds: [discord, broken, gone],
    });
    await w.sendEvents({ message: "retry-me" });
    await drainOutbox();
    const status = async () => {
      const rows = (await w.outbox()).filter((n) => [discord, broken, gone].includes(n.channelId));
      return Object.fromEntries(rows.map((n) => [n.channelId, n]));
    };
    let s = await status();
    expect(s[discord]).toMatchObject({ status: "pending", attempts: 1, responseStatus: 429, nextAttemptAt: w.clock.now + 2500 });
    expect(s[gone]).toMatchObject({ status: "failed", attempts: 1, responseStatus: 410, lastError: "HTTP 410" });
    expect(s[broken]).toMatchObject({ status: "pending", attempts: 1, responseStatus: 500 });
    w.clock.now += 2499;
    await drainOutbox();
    expect((await status())[discord]).toMatchObject({ status: "pending", attempts: 1 });
    w.clock.now += 1;
    await drainOutbox();
    s = await status();
    expect(s[discord]).toMatchObject({ status: "sent", attempts: 2 });
    const embed = json(byPath("/discord").at(-1)).embeds[0];
    expect(embed).toMatchObject({ title: "New issue in web: AlertError: retry-me", color: 0xd92d20 });
    expect(json(byPath("/discord").at(-1)).allowed_mentions).toEqual({ parse: [] });
    for (let i = 0; i < 5; i++) {
      w.clock.now += 60 * 60_000;
      await drainOutbox();
    }
    s = await status();
    expect(s[broken]).toMatchObject({ status: "failed", attempts: 3, lastError: "HTTP 500", responseBody: "broken" });
    expect(byPath("/always-500")).toHaveLength(3);
    // "retry now" gives a failed message fresh attempts
    const retried = await w.services.alerts.retryNow(w.admin, "acme", "web", s[gone]?.id ?? 0);
    expect(retried).toMatchObject({ status: "pending", attempts: 0 });
    await drainOutbox();
    expect(byPath("/gone")).toHaveLength(2);
  });

  test("outbound policy: private and loopback webhooks are refused unless allowed", async () => {
    const strict: SendDeps = { ...deps, alerts: { ...deps.alerts, allowPrivateWebhooks: false, webhookAllowHosts: [] } };
    const before = rx.received.length;
    // Saved, but the save says the delivery loop will refuse it and which setting allows it.
    const saved = await w.services.alerts.createChannel(w.admin, "acme", "web", {
      kind: "webhook",
      name: "loopback",
      config: { url: `${rx.url}/private` },
    });
    expect(saved.warning).toMatch(/^Deliveries to this channel will be refused: 127\.0\.0\.1 is a loopback, private or link-local address/);
    expect(saved.warning).toContain("ALERTS_ALLOW_PRIVATE_WEBHOOKS=true");
    expect(saved.warning).toContain("ALERTS_WEBHOOK_ALLOW_HOSTS");
    const loop = saved.id;
    const publicOne = await w.services.alerts.createChannel(w.admin, "acme", "web", {
      kind: "teams",
      name: "public",
      config: { url: "https://203.0.113.9.nip.invalid/hook" },
    });
    expect(publicOne.warning).toBeNull();
    const named = await channel("slack", { url: `${rx.url.replace("127.0.0.1", "localhost")}/private-named` });
    const meta = await channel("webhook", { url: "http://169.254.169.254/latest/meta-data" });
    await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "ssrf",
      triggers: { newIssue: true },
      channelIds: [loop, named, meta],
    });
    await w.sendEvents({ message: "ssrf-1" });
    while ((await deliverDue(w.db, strict, silentLog)) > 0) {}
    const rows = (await w.outbox()).filter((n) => [loop, named, meta].includes(n.channelId));
    expect(rows.map((n) => [n.status, n.attempts, n.lastError?.split(":")[0]])).toEqual([
      ["failed", 1, "forbidden_address"],
      ["failed", 1, "forbidden_address"],
      ["failed", 1, "forbidden_address"],
    ]);
    // "Send a test"'s failure names the setting too.
    expect(rows.every((n) => n.lastError?.includes("ALERTS_ALLOW_PRIVATE_WEBHOOKS=true"))).toBe(true);
    expect(rx.received.slice(before).filter((r) => r.path.startsWith("/private"))).toHaveLength(0);
    // an allow-list entry lets exactly that range through
    const allowed: SendDeps = { ...deps, alerts: { ...deps.alerts, allowPrivateWebhooks: false, webhookAllowHosts: ["127.0.0.0/8"] } };
    await w.services.alerts.retryNow(w.admin, "acme", "web", rows[0]?.id ?? 0);
    while ((await deliverDue(w.db, allowed, silentLog)) > 0) {}
    expect(byPath("/private")).toHaveLength(1);
  });
});
