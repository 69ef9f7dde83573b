/**
 * Plain-text and HTML renderings of an alert (email parts, Telegram, ntfy). Event and release
 * content is always text: the HTML escapes every value, nothing from an event or an SDK is ever
 * markup.
 */
import { type AlertMessage, detailLines, facts, frameText, headline, tagsOf } from "./message";
import { nextjsDetails } from "./nextjs-alert";

export function linkOf(m: AlertMessage, publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}${m.path}`;
}

export function renderText(m: AlertMessage, publicUrl: string): string {
  const lines = [headline(m), ""];
  if (m.kind === "alert" || m.kind === "release") {
    const details = detailLines(m);
    if (details.length > 0) lines.push(...details, "");
    for (const [k, v] of facts(m)) lines.push(`${k}: ${v}`);
    const tags = tagsOf(m);
    if (tags.length > 0) lines.push(`Tags: ${tags.map(([k, v]) => `${k}=${v}`).join(", ")}`);
  } else if (m.kind === "digest") {
    for (const h of m.held) lines.push(`- ${h.shortId} ${h.title} (${h.trigger}) ${publicUrl.replace(/\/+$/, "")}${h.path}`);
    if (m.heldCount > m.held.length) lines.push(`… and ${m.heldCount - m.held.length} more`);
  } else {
    lines.push("If you can read this, the channel works.");
  }
  lines.push("", linkOf(m, publicUrl));
  return lines.join("\n");
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

export function renderHtml(m: AlertMessage, publicUrl: string): string {
  const e = escapeHtml;
  const link = e(linkOf(m, publicUrl));
  const parts = [`<h2 style="font:600 16px system-ui,sans-serif;margin:0 0 8px">${e(headline(m))}</h2>`];
  if (m.kind === "alert" || m.kind === "release") {
    if (m.kind === "alert") {
      for (const l of nextjsDetails(m.nextjs)) parts.push(`<p style="font:13px system-ui,sans-serif;margin:0 0 4px">${e(l)}</p>`);
      if (m.issue.culprit) parts.push(`<p style="font:13px ui-monospace,monospace;color:#555;margin:0 0 4px">${e(m.issue.culprit)}</p>`);
      const frame = frameText(m.event.topFrame);
      if (frame) parts.push(`<p style="font:13px ui-monospace,monospace;margin:0 0 12px">at ${e(frame)}</p>`);
    }
    const rows = facts(m).map(
      ([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0;color:#555;font-weight:500">${e(k)}</th><td>${e(v)}</td></tr>`,
    );
    parts.push(`<table style="font:13px system-ui,sans-serif;border-collapse:collapse">${rows.join("")}</table>`);
    const tags = tagsOf(m);
    if (tags.length > 0)
      parts.push(`<p style="font:12px system-ui,sans-serif;color:#555">${tags.map(([k, v]) => `${e(k)}=${e(v)}`).join(" · ")}</p>`);
  } else if (m.kind === "digest") {
    const items = m.held.map((h) => `<li>${e(h.shortId)} ${e(h.title)} (${e(h.trigger)})</li>`);
    parts.push(`<ul style="font:13px system-ui,sans-serif">${items.join("")}</ul>`);
    if (m.heldCount > m.held.length) parts.push(`<p>… and ${m.heldCount - m.held.length} more</p>`);
  } else {
    parts.push("<p>If you can read this, the channel works.</p>");
  }
  parts.push(`<p><a href="${link}">${m.kind === "release" ? "Open the release in Errata" : "Open in Errata"}</a></p>`);
  return `<!doctype html><html><body>${parts.join("\n")}</body></html>`;
}
