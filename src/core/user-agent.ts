/**
 * `browser`, `os` and `device` contexts from the request's User-Agent, as Relay derives them: a
 * context the SDK sent itself is kept as is, only missing ones are filled. The tags (`browser`,
 * `os`, `device`…) then follow from the contexts in `search/event-tags.ts`. Pure; ua-parser-js (v1,
 * MIT) does the parsing.
 */
import UAParser from "ua-parser-js";
import type { NormalizedEvent } from "./event";

/** Longer User-Agent strings are cut before parsing (real ones stay well under 1 KiB). */
const MAX_UA = 1024;
const MAX_FIELD = 100;

type Context = Record<string, unknown>;

/** The User-Agent header of the event's request (headers are `[name, value]` pairs after normalising). */
export function userAgentOf(event: NormalizedEvent): string | undefined {
  const headers = event.request?.headers;
  if (!Array.isArray(headers)) return undefined;
  for (const pair of headers) {
    if (!Array.isArray(pair) || typeof pair[0] !== "string" || pair[0].toLowerCase() !== "user-agent") continue;
    const v = typeof pair[1] === "string" ? pair[1].trim() : "";
    return v === "" ? undefined : v.slice(0, MAX_UA);
  }
  return undefined;
}

/** One clean field: trimmed (a trailing newline became part of a tag and its search link), bounded. */
function clean(v: string | undefined): string | undefined {
  const t = v?.replace(/\s+/g, " ").trim();
  return t ? t.slice(0, MAX_FIELD) : undefined;
}

function named(type: string, name: string | undefined, version: string | undefined): Context | undefined {
  const n = clean(name);
  if (!n) return undefined;
  const v = clean(version);
  return { type, name: n, ...(v ? { version: v } : {}) };
}

/** The contexts a User-Agent string gives: only the parts it names. */
export function contextsFromUserAgent(ua: string): { browser?: Context; os?: Context; device?: Context } {
  const r = new UAParser(ua.slice(0, MAX_UA)).getResult();
  const out: { browser?: Context; os?: Context; device?: Context } = {};
  const browser = named("browser", r.browser.name, r.browser.version);
  if (browser) out.browser = browser;
  const os = named("os", r.os.name, r.os.version);
  if (os) out.os = os;
  const model = clean(r.device.model);
  const brand = clean(r.device.vendor);
  if (model || brand) {
    const family = model ?? brand;
    out.device = { type: "device", family, ...(model ? { model } : {}), ...(brand ? { brand } : {}) };
  }
  return out;
}

/** Fills the event's missing `browser` / `os` / `device` contexts from its User-Agent (in place). */
export function applyUserAgentContexts(event: NormalizedEvent): void {
  const ua = userAgentOf(event);
  if (!ua) return;
  const derived = contextsFromUserAgent(ua);
  const contexts = event.contexts ?? {};
  let changed = false;
  for (const key of ["browser", "os", "device"] as const) {
    const c = derived[key];
    if (!c || contexts[key] !== undefined) continue;
    contexts[key] = c;
    changed = true;
  }
  if (changed) event.contexts = contexts;
}
