/**
 * Next.js digests. In production Next hides a server error from the browser and hands it a
 * `digest` instead: `stringHash(message + stack)` as a 32-bit decimal, optionally suffixed
 * `@E<code>` (Next's error code). The same number is on the server error that `onRequestError`
 * reports, so it joins the two halves. The SDKs do not send it by themselves; the README's
 * `beforeSend` hook puts it in a `digest` tag, and other setups put it in contexts or extra.
 */
import type { NormalizedEvent } from "../event";

export interface DigestInfo {
  /** as sent (kept for display), e.g. `2183930132@E352` */
  value: string;
  /** what events are matched on: the value without its `@E<code>` suffix */
  key: string;
  /** where it was found (`tag:digest`, `contexts.nextjs.digest`, `extra.digest`, `mechanism.data.digest`, …) */
  source: string;
}

export type DigestSide = "server" | "client";

/**
 * Control-flow "errors" carry reserved digests (redirect(), notFound(), dynamic bail-outs…). They are
 * not failures and never link anything, so they are not indexed.
 */
const RESERVED_PREFIXES = ["NEXT_REDIRECT", "NEXT_NOT_FOUND", "NEXT_HTTP_ERROR_FALLBACK;"] as const;
const RESERVED = new Set([
  "NEXT_NOT_FOUND",
  "BAILOUT_TO_CLIENT_SIDE_RENDERING",
  "DYNAMIC_SERVER_USAGE",
  "HANGING_PROMISE_REJECTION",
  "NEXT_PRERENDER_INTERRUPTED",
  "CLIENT_HOOK_DYNAMIC",
  "INSTANT_VALIDATION_ERROR",
]);

/** Next's own digest: decimal, with an optional `@E<code>`. */
const NUMERIC = /^(\d{1,20})(@E\d{1,6})?$/;
/** A custom digest (an app may set `error.digest` itself): one token, no spaces. */
const CUSTOM = /^[\w.:;@/-]{1,128}$/;

/** The first line of the text React/Next put on the browser-side stand-in for a server error. */
export const SERVER_COMPONENTS_MIRROR = "An error occurred in the Server Components render.";
/** React's code for that message in production builds (`Minified React error #441`). */
export const SERVER_COMPONENTS_MIRROR_REACT_CODE = 441;

export function isReservedDigest(value: string): boolean {
  return RESERVED.has(value) || RESERVED_PREFIXES.some((p) => value.startsWith(p));
}

/**
 * A digest value as sent → its display and match forms, or null when it is not a digest worth
 * indexing (reserved, empty, not a single token). Only numeric digests are accepted unless
 * `allowCustom` (the event comes from the Next.js SDK or carries Next's context), so an unrelated
 * `digest` tag (say, a container image digest) is not mistaken for one.
 */
export function parseDigest(raw: unknown, allowCustom = true): { value: string; key: string } | null {
  const value = typeof raw === "number" && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : typeof raw === "string" ? raw.trim() : "";
  if (value === "" || isReservedDigest(value)) return null;
  const m = NUMERIC.exec(value);
  if (m) return { value, key: m[1] as string };
  if (!allowCustom || !CUSTOM.test(value)) return null;
  return { value, key: value.replace(/@E\d{1,6}$/, "") };
}

/**
 * What a user may paste into the search box to jump to a digest: Next's number (6–12 digits) with an
 * optional `@E<code>`. Returns the match key, or null for anything else (it is then a normal search).
 */
export function pastedDigest(query: string): string | null {
  const m = /^(\d{6,12})(@E\d{1,6})?$/.exec(query.trim());
  return m ? (m[1] as string) : null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fromNextjsSdk(event: NormalizedEvent): boolean {
  const sdk = event.sdk;
  const name = isObj(sdk) && typeof sdk.name === "string" ? sdk.name : "";
  return name.includes("nextjs") || isObj(event.contexts?.nextjs);
}

function tagValue(event: NormalizedEvent, key: string): string | undefined {
  return event.tags?.find(([k]) => k === key)?.[1];
}

/**
 * The digest an event carries, or null. Looked up, in order: the `digest` tag (our documented hook),
 * `contexts.nextjs.digest`, `extra.digest`, the exceptions' `mechanism.data.digest`, the context the
 * ExtraErrorData integration writes (`contexts.<ErrorType>.digest`); for the browser mirror of a
 * server error also any tag or extra whose name contains "digest" (`next_error_digest`…).
 */
export function extractDigest(event: NormalizedEvent): DigestInfo | null {
  const custom = fromNextjsSdk(event);
  const found = (raw: unknown, source: string): DigestInfo | null => {
    const d = parseDigest(raw, custom);
    return d ? { ...d, source } : null;
  };

  const candidates: Array<[unknown, string]> = [
    [tagValue(event, "digest"), "tag:digest"],
    [event.contexts?.nextjs?.digest, "contexts.nextjs.digest"],
    [event.extra?.digest, "extra.digest"],
  ];
  for (const exc of event.exception?.values ?? []) {
    const data = exc.mechanism?.data;
    if (isObj(data)) candidates.push([data.digest, "mechanism.data.digest"]);
    if (exc.type && isObj(event.contexts?.[exc.type])) candidates.push([event.contexts?.[exc.type]?.digest, `contexts.${exc.type}.digest`]);
  }
  for (const [raw, source] of candidates) {
    const d = raw === undefined || raw === null ? null : found(raw, source);
    if (d) return d;
  }
  if (!isServerComponentsMirror(event)) return null;
  for (const [k, v] of event.tags ?? []) {
    if (/digest/i.test(k)) {
      const d = found(v, `tag:${k}`);
      if (d) return d;
    }
  }
  for (const [k, v] of Object.entries(event.extra ?? {})) {
    if (/digest/i.test(k)) {
      const d = found(v, `extra.${k}`);
      if (d) return d;
    }
  }
  return null;
}

/**
 * Is this the browser-side stand-in for a server error ("An error occurred in the Server Components
 * render…", minified by React as #441)? These all share one message, so without their digest they
 * collapse into one unattributable issue.
 */
export function isServerComponentsMirror(event: NormalizedEvent): boolean {
  for (const exc of event.exception?.values ?? []) {
    const v = typeof exc.value === "string" ? exc.value : "";
    if (v.startsWith(SERVER_COMPONENTS_MIRROR)) return true;
    if (v.startsWith(`Minified React error #${SERVER_COMPONENTS_MIRROR_REACT_CODE};`)) return true;
  }
  const message = event.logentry?.formatted ?? event.logentry?.message;
  return typeof message === "string" && message.startsWith(SERVER_COMPONENTS_MIRROR);
}

const SERVER_RUNTIMES = new Set(["node", "vercel-edge", "edge", "bun", "deno", "cloudflare", "workerd"]);

/**
 * Which half of a Next.js app sent the event: the server (Node or edge runtime: `onRequestError`,
 * the server SDK) or the browser.
 */
export function digestSide(event: NormalizedEvent): DigestSide {
  if (event.platform === "node") return "server";
  const runtime = event.contexts?.runtime?.name;
  if (typeof runtime === "string" && SERVER_RUNTIMES.has(runtime.toLowerCase())) return "server";
  // captureRequestError sets this context; it exists only on the server.
  if (isObj(event.contexts?.nextjs) && typeof event.contexts?.nextjs?.router_kind === "string") return "server";
  if (event.platform !== "javascript" && typeof event.server_name === "string" && event.server_name !== "") return "server";
  return "client";
}
