/** Request: headers, cookies and query string as pairs, the URL, `env.REMOTE_ADDR` and the `data` bag. */

import { BAG_LIMITS, CHAR_LIMITS, type EventRequest, type NormalizeContext, type NormalizedEvent, type Pairs } from "../event";
import { isObj, str } from "./coerce";
import { AUTO_IP, inferIpSetting } from "./infer-ip";
import type { Notes } from "./notes";
import { trimBag, trimString } from "./trim";

function toPairs(v: unknown, splitter: "query" | "cookie" | null): Pairs | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") {
    if (!splitter) return undefined;
    return parseKvString(v, splitter);
  }
  const out: Pairs = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      if (Array.isArray(item) && item.length === 2 && item[1] !== null && item[1] !== undefined) out.push([str(item[0]), str(item[1])]);
    }
    return out;
  }
  if (isObj(v)) {
    for (const [k, value] of Object.entries(v)) {
      // .NET sends header values as lists: one pair per value.
      if (Array.isArray(value)) for (const one of value) out.push([k, str(one)]);
      else if (value !== null && value !== undefined) out.push([k, str(value)]);
    }
    return out;
  }
  return undefined;
}

function parseKvString(s: string, kind: "query" | "cookie"): Pairs {
  const q = kind === "query" ? s.replace(/^\?/, "") : s;
  const sep = kind === "query" ? "&" : ";";
  const out: Pairs = [];
  for (const part of q.split(sep)) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    const k = eq === -1 ? p : p.slice(0, eq);
    const value = eq === -1 ? "" : p.slice(eq + 1);
    out.push(kind === "query" ? [safeDecode(k), safeDecode(value)] : [k, value]);
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

export function normalizeRequest(event: NormalizedEvent, ctx: NormalizeContext, notes: Notes): void {
  const raw: unknown = event.request;
  if (raw === undefined) return;
  if (!isObj(raw)) {
    if (raw !== null) notes.add("dropped", "request", "`request` is not an object.");
    delete event.request;
    return;
  }
  const req: EventRequest = { ...raw };
  if (req.url !== undefined && typeof req.url !== "string") req.url = str(req.url);
  if (req.method !== undefined && req.method !== null)
    req.method = trimString(str(req.method), CHAR_LIMITS.enumLike, "request.method", notes);
  if (
    typeof req.url === "string" &&
    req.url.includes("?") &&
    (req.query_string === undefined || req.query_string === null || (req.query_string as unknown) === "")
  ) {
    const at = req.url.indexOf("?");
    req.query_string = parseKvString(req.url.slice(at + 1).split("#")[0] ?? "", "query");
    req.url = req.url.slice(0, at);
  }
  const fields: Array<["headers" | "cookies" | "query_string", "query" | "cookie" | null]> = [
    ["headers", null],
    ["cookies", "cookie"],
    ["query_string", "query"],
  ];
  for (const [key, splitter] of fields) {
    const v: unknown = req[key];
    if (v === undefined) continue;
    const pairs = toPairs(v, splitter);
    if (pairs) req[key] = pairs;
    else {
      if (v !== null) notes.add("dropped", `request.${key}`, `\`request.${key}\` has an unsupported shape.`);
      delete req[key];
    }
  }
  if (typeof req.url === "string") req.url = trimString(req.url, CHAR_LIMITS.path, "request.url", notes);
  if (req.env !== undefined && !isObj(req.env)) delete req.env;
  if (req.env?.REMOTE_ADDR === AUTO_IP) {
    const never = inferIpSetting(event) === "never";
    req.env = { ...req.env };
    if (ctx.clientIp && !never) {
      req.env.REMOTE_ADDR = ctx.clientIp;
      notes.add("inferred", "request.env.REMOTE_ADDR", "`{{auto}}` was replaced by the client's address.");
    } else {
      delete req.env.REMOTE_ADDR;
      notes.add("dropped", "request.env.REMOTE_ADDR", "`{{auto}}` could not be resolved.");
    }
  }
  if (req.data !== undefined) {
    const data = trimBag(req.data, BAG_LIMITS.requestData, "request.data", notes);
    if (data === undefined) delete req.data;
    else req.data = data;
  }
  event.request = req;
}
