/**
 * The request each webhook channel kind expects, built from an alert message. Pure: the sender
 * (src/pipeline/alerts/send-notification.ts) adds the signature and makes the call. Event text is
 * escaped for each target's markup (Slack mrkdwn, Discord and Mattermost markdown); nothing from an
 * event can add a link, a mention or markup.
 */
import { type AlertMessage, detailLines, facts, headline, MESSAGE_VERSION, tagsOf } from "./message";
import { linkOf, renderText } from "./render-text";
import type { ChannelConfig, ChannelKind } from "./types";

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const LEVEL_COLOURS: Record<string, number> = { fatal: 0xb42318, error: 0xd92d20, warning: 0xdc6803, info: 0x1570ef, debug: 0x667085 };

function colourOf(m: AlertMessage): number {
  if (m.kind === "alert") return LEVEL_COLOURS[m.issue.level] ?? 0xd92d20;
  // a release whose sessions crash: as loud as an error
  return m.kind === "release" ? 0xd92d20 : 0x667085;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Slack mrkdwn: &, < and > are the only control characters. */
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Discord / Mattermost markdown and mentions: escape markdown characters, break @mentions. */
const mdEscape = (s: string) => s.replace(/([\\`*_~|>[\]()#-])/g, "\\$1").replace(/@/g, "@\u200b");

/** The documented, versioned JSON of the generic webhook (docs/alerts.md). */
export function genericBody(m: AlertMessage, publicUrl: string, deliveryId: string): string {
  return JSON.stringify({ version: MESSAGE_VERSION, delivery_id: deliveryId, url: linkOf(m, publicUrl), message: m });
}

function slackBody(m: AlertMessage, publicUrl: string): unknown {
  const link = linkOf(m, publicUrl);
  const blocks: unknown[] = [{ type: "header", text: { type: "plain_text", text: cut(headline(m), 150), emoji: false } }];
  const details = detailLines(m);
  if (details.length > 0)
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: details.map((l) => `\`${slackEscape(l.replace(/`/g, "'"))}\``).join("\n") },
    });
  const shown = facts(m);
  if (shown.length > 0) {
    blocks.push({
      type: "section",
      fields: shown.slice(0, 10).map(([k, v]) => ({ type: "mrkdwn", text: `*${k}*\n${slackEscape(v)}` })),
    });
    const tags = tagsOf(m);
    if (tags.length > 0)
      blocks.push({
        type: "context",
        elements: [{ type: "plain_text", text: cut(tags.map(([k, v]) => `${k}=${v}`).join("  "), 2000) }],
      });
  } else if (m.kind === "digest") {
    blocks.push({ type: "section", text: { type: "plain_text", text: cut(renderText(m, publicUrl), 2900) } });
  }
  blocks.push({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in Errata" }, url: link }] });
  return { text: slackEscape(headline(m)), blocks };
}

function discordBody(m: AlertMessage, publicUrl: string): unknown {
  const description = [
    ...detailLines(m).map((l) => `\`${l.replace(/`/g, "'")}\``),
    ...(m.kind === "digest" ? m.held.map((h) => `• ${mdEscape(`${h.shortId} ${h.title}`)}`) : []),
  ];
  const embed: Record<string, unknown> = {
    title: cut(headline(m), 256),
    url: linkOf(m, publicUrl),
    color: colourOf(m),
    description: cut(description.join("\n"), 4000),
  };
  const shown = facts(m);
  if (shown.length > 0) embed.fields = shown.map(([name, value]) => ({ name, value: cut(mdEscape(value), 1024), inline: true }));
  if (m.kind === "alert") embed.timestamp = new Date(m.issue.lastSeen).toISOString();
  return { content: null, embeds: [embed], allowed_mentions: { parse: [] } };
}

function teamsBody(m: AlertMessage, publicUrl: string): unknown {
  const body: unknown[] = [{ type: "TextBlock", text: headline(m), weight: "Bolder", size: "Medium", wrap: true }];
  for (const l of detailLines(m))
    body.push({ type: "TextBlock", text: l, fontType: "Monospace", isSubtle: true, wrap: true, spacing: "Small" });
  const shown = facts(m);
  if (shown.length > 0) body.push({ type: "FactSet", facts: shown.map(([title, value]) => ({ title, value })) });
  if (m.kind === "digest")
    for (const h of m.held) body.push({ type: "TextBlock", text: `${h.shortId} ${h.title}`, wrap: true, spacing: "None" });
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
          actions: [{ type: "Action.OpenUrl", title: "Open in Errata", url: linkOf(m, publicUrl) }],
        },
      },
    ],
  };
}

function mattermostBody(m: AlertMessage, publicUrl: string): unknown {
  const colour = `#${colourOf(m).toString(16).padStart(6, "0")}`;
  return {
    text: mdEscape(headline(m)),
    attachments: [
      {
        fallback: headline(m),
        color: colour,
        title: cut(headline(m), 250),
        title_link: linkOf(m, publicUrl),
        text: [
          ...detailLines(m).map((l) => `\`${l.replace(/`/g, "'")}\``),
          ...(m.kind === "digest" ? m.held.map((h) => `- ${mdEscape(`${h.shortId} ${h.title}`)}`) : []),
        ].join("\n"),
        fields: facts(m).map(([title, value]) => ({ short: true, title, value: mdEscape(value) })),
      },
    ],
  };
}

function googleChatBody(m: AlertMessage, publicUrl: string): unknown {
  const widgets: unknown[] = [];
  for (const l of detailLines(m)) widgets.push({ decoratedText: { text: escapeChatHtml(l), wrapText: true } });
  for (const [k, v] of facts(m)) widgets.push({ decoratedText: { topLabel: k, text: escapeChatHtml(v) } });
  if (m.kind === "digest")
    for (const h of m.held) widgets.push({ decoratedText: { text: escapeChatHtml(`${h.shortId} ${h.title}`), wrapText: true } });
  widgets.push({ buttonList: { buttons: [{ text: "Open in Errata", onClick: { openLink: { url: linkOf(m, publicUrl) } } }] } });
  return {
    // Plain text (shown in notifications); the card carries the detail.
    text: headline(m).replace(/[<>&*_~`]/g, " "),
    cardsV2: [{ cardId: "errata-alert", card: { header: { title: cut(headline(m), 200) }, sections: [{ widgets }] } }],
  };
}

/** Google Chat card text understands a subset of HTML. */
const escapeChatHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function telegramRequest(m: AlertMessage, publicUrl: string, config: ChannelConfig): WebhookRequest {
  const base = (config.url ?? "https://api.telegram.org").replace(/\/+$/, "");
  return {
    url: `${base}/bot${config.botToken ?? ""}/sendMessage`,
    headers: { "content-type": "application/json" },
    // No parse_mode: the text is shown as it is, nothing in it is markup.
    body: JSON.stringify({
      chat_id: config.chatId,
      text: cut(renderText(m, publicUrl), 4000),
      link_preview_options: { is_disabled: true },
    }),
  };
}

/** ntfy's JSON publishing: POST to the server root with the topic in the body. */
function ntfyRequest(m: AlertMessage, publicUrl: string, config: ChannelConfig): WebhookRequest {
  const u = new URL(config.url ?? "");
  const topic = u.pathname.replace(/^\/+|\/+$/g, "");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (config.token) headers.authorization = `Bearer ${config.token}`;
  const priority = m.kind === "release" || (m.kind === "alert" && (m.issue.level === "fatal" || m.trigger === "regression")) ? 4 : 3;
  return {
    url: `${u.origin}/`,
    headers,
    body: JSON.stringify({
      topic,
      title: cut(headline(m), 250),
      message: cut(renderText(m, publicUrl), 3900),
      click: linkOf(m, publicUrl),
      tags: ["rotating_light"],
      priority,
    }),
  };
}

/** The request for a non-email channel. */
export function webhookRequest(
  kind: Exclude<ChannelKind, "email" | "pagerduty" | "opsgenie">,
  config: ChannelConfig,
  m: AlertMessage,
  publicUrl: string,
  deliveryId: string,
): WebhookRequest {
  const json = { "content-type": "application/json" };
  const url = config.url ?? "";
  switch (kind) {
    case "webhook":
      return { url, headers: json, body: genericBody(m, publicUrl, deliveryId) };
    case "slack":
      return { url, headers: json, body: JSON.stringify(slackBody(m, publicUrl)) };
    case "discord":
      return { url, headers: json, body: JSON.stringify(discordBody(m, publicUrl)) };
    case "teams":
      return { url, headers: json, body: JSON.stringify(teamsBody(m, publicUrl)) };
    case "mattermost":
      return { url, headers: json, body: JSON.stringify(mattermostBody(m, publicUrl)) };
    case "googlechat":
      return { url, headers: { "content-type": "application/json; charset=UTF-8" }, body: JSON.stringify(googleChatBody(m, publicUrl)) };
    case "telegram":
      return telegramRequest(m, publicUrl, config);
    case "ntfy":
      return ntfyRequest(m, publicUrl, config);
  }
}
