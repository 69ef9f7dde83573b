/**
 * The tags an event is counted under for search and value distributions: the SDK's own tags plus
 * the ones Sentry derives from the event (level, environment, release, user, browser, os, url…).
 * Pure; the digest batch aggregates these per issue.
 */
import type { NormalizedEvent } from "../event";
import { isMessageStandIn } from "../grouping/describe";

/** At most this many tags per event are counted (SDKs rarely send more than a dozen). */
export const MAX_STAT_TAGS = 40;
const MAX_VALUE = 200;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
// Trimmed: "iOS\n" + "17.4" made the tag "iOS\n 17.4" (a second bucket, a `%0A` search link).
const text = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : undefined;

function nameVersion(ctx: unknown): { name?: string; full?: string } {
  if (!isObj(ctx)) return {};
  const name = text(ctx.name);
  const version = text(ctx.version);
  return { name, full: name ? (version ? `${name} ${version}` : name) : undefined };
}

/** The Sentry-style `user` tag: the first identifying field. */
export function userTagOf(user: unknown): string | undefined {
  if (!isObj(user)) return undefined;
  const id = text(user.id);
  if (id) return `id:${id}`;
  const email = text(user.email);
  if (email) return `email:${email}`;
  const username = text(user.username);
  if (username) return `username:${username}`;
  const ip = text(user.ip_address);
  return ip ? `ip:${ip}` : undefined;
}

function urlWithoutQuery(url: unknown): string | undefined {
  const u = text(url);
  if (!u) return undefined;
  const cut = u.search(/[?#]/);
  return cut === -1 ? u : u.slice(0, cut);
}

/** `[key, value]` pairs, each key once, derived tags first. */
export function statTagsOf(event: NormalizedEvent, digestKey?: string | null): Array<[string, string]> {
  const out = new Map<string, string>();
  const put = (k: string, raw: string | undefined) => {
    // Trimmed: a value with a trailing newline made a second, invisible bucket (and a `%0A` link).
    const v = raw?.trim();
    if (!v || out.has(k) || out.size >= MAX_STAT_TAGS) return;
    out.set(k, v.length > MAX_VALUE ? v.slice(0, MAX_VALUE) : v);
  };
  put("level", event.level);
  put("environment", text(event.environment));
  put("release", text(event.release));
  put("dist", text(event.dist));
  put("transaction", text(event.transaction));
  put("server_name", text(event.server_name));
  put("user", userTagOf(event.user));
  put("user.email", isObj(event.user) ? text(event.user.email) : undefined);
  const contexts = isObj(event.contexts) ? event.contexts : {};
  const browser = nameVersion(contexts.browser);
  put("browser", browser.full);
  put("browser.name", browser.name);
  const os = nameVersion(contexts.os);
  put("os", os.full);
  put("os.name", os.name);
  put("runtime", nameVersion(contexts.runtime).full);
  put("device", isObj(contexts.device) ? (text(contexts.device.model) ?? text(contexts.device.family)) : undefined);
  put("url", urlWithoutQuery(event.request?.url));
  // A message sent with its stack (a synthetic stand-in exception) was not handled or thrown at all.
  const mechanism = isMessageStandIn(event) ? undefined : event.exception?.values?.at(-1)?.mechanism;
  if (mechanism && typeof mechanism.handled === "boolean") put("handled", mechanism.handled ? "yes" : "no");
  put("mechanism", text(mechanism?.type));
  put("digest", digestKey ?? undefined);
  for (const pair of event.tags ?? []) {
    if (Array.isArray(pair) && typeof pair[0] === "string" && pair[0] !== "") put(pair[0], text(pair[1]));
  }
  return [...out.entries()];
}
