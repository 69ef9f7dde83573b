/**
 * Server-side PII scrubbing (issue 4, Sentry's "data scrubber" defaults). Pure: the project's
 * settings come in as an argument. Runs after normalisation and before grouping and storage, so
 * neither the stored payload nor the title, culprit or metadata ever hold a secret.
 *
 *  - values under sensitive keys (password, secret, token, auth, cookie, session, card numbers…)
 *    in `extra`, `contexts`, `request.headers/cookies/query_string/data/env`, frame `vars`,
 *    breadcrumb `data`, `user` and `tags` become "[Filtered]"; all cookie values are filtered;
 *  - in every string of the event: credit-card numbers (issuer prefix + Luhn), PEM private keys,
 *    `Bearer …` tokens, passwords in URLs and sensitive `key=value` parameters;
 *  - optionally the end user's IP address.
 *
 * Copy-on-write: containers are copied only along paths that change; the input is never mutated.
 * What was removed is recorded as `scrubbed` notes (paths and kinds, never values).
 */
import type { NormalizedEvent, ProcessingNote } from "../event";
import { FILTERED, isCardNumber, KeyMatcher, type SecretKind } from "./patterns";

export interface ScrubSettings {
  /** scrub at all (default true) */
  enabled: boolean;
  /** also remove the end user's IP address (default false) */
  scrubIp: boolean;
  /** more key names (substrings) to treat as sensitive */
  extraKeys: string[];
  /** key names never scrubbed, exact (case- and separator-insensitive) */
  safeKeys: string[];
}

export const DEFAULT_SCRUB_SETTINGS: Readonly<ScrubSettings> = Object.freeze({
  enabled: true,
  scrubIp: false,
  extraKeys: [],
  safeKeys: [],
});

const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim()) : undefined;

/**
 * The scrubbing settings from a project's `settings` JSON (key `scrubbing`); defaults for anything
 * absent or malformed — a broken setting must never turn scrubbing off.
 */
export function readScrubSettings(projectSettings: unknown): ScrubSettings {
  const raw =
    typeof projectSettings === "object" && projectSettings !== null ? (projectSettings as Record<string, unknown>).scrubbing : undefined;
  if (typeof raw !== "object" || raw === null) return { ...DEFAULT_SCRUB_SETTINGS };
  const r = raw as Record<string, unknown>;
  return {
    enabled: r.enabled !== false,
    scrubIp: r.scrubIp === true,
    extraKeys: stringList(r.extraKeys) ?? [],
    safeKeys: stringList(r.safeKeys) ?? [],
  };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** How keys inside a container are treated. */
type Mode = "strings" | "keys" | "all";

const KIND_TEXT: Record<SecretKind | "key" | "ip" | "cookie", string> = {
  key: "value under a sensitive key",
  cookie: "cookie value",
  ip: "IP address",
  private_key: "PEM private key",
  bearer_token: "bearer token",
  url_password: "password in a URL",
  sensitive_parameter: "sensitive parameter",
  credit_card: "credit card number",
};

const MAX_NOTES = 50;

// One matcher (a compiled pattern and its key cache) per distinct key configuration, shared by
// every event of the projects using it; bounded because the configurations come from settings.
const matchers = new Map<string, KeyMatcher>();
function matcherFor(settings: ScrubSettings): KeyMatcher {
  const id = JSON.stringify([settings.extraKeys, settings.safeKeys]);
  let m = matchers.get(id);
  if (!m) {
    if (matchers.size >= 100) {
      for (const old of matchers.values()) old.forgetMemo();
      matchers.clear();
    }
    m = new KeyMatcher(settings.extraKeys, settings.safeKeys);
    matchers.set(id, m);
  }
  return m;
}
const IP_HEADERS = new Set(["x-forwarded-for", "x-real-ip", "cf-connecting-ip", "true-client-ip", "forwarded", "x-client-ip"]);

/**
 * The walk. The current path is kept as a stack of segments, joined only when something is
 * recorded: building a path string for every visited value was a third of the cost.
 */
class Scrubber {
  readonly keys: KeyMatcher;
  /** path → kinds removed there */
  readonly removed = new Map<string, Set<string>>();
  private readonly path: Array<string | number> = [];
  private readonly found = new Set<SecretKind>();

  constructor(settings: ScrubSettings) {
    this.keys = matcherFor(settings);
  }

  /**
   * `segment` appended to the current path until `leave()`: the walk's hot paths (every container
   * of the event) use the pair, where `at` would allocate a closure per container. A throw in
   * between leaves the path dirty, which is harmless: the event's scrubbing is abandoned with it.
   */
  enter(segment: string | number): void {
    this.path.push(segment);
  }

  leave(): void {
    this.path.pop();
  }

  /** Runs `fn` with `segment` appended to the current path. */
  at<T>(segment: string | number, fn: () => T): T {
    this.path.push(segment);
    try {
      return fn();
    } finally {
      this.path.pop();
    }
  }

  record(kind: string): void {
    const path = this.path.join(".");
    let kinds = this.removed.get(path);
    if (!kinds) {
      kinds = new Set();
      this.removed.set(path, kinds);
    }
    kinds.add(kind);
  }

  string(s: string): string {
    const out = this.keys.scrub(s, this.found);
    if (this.found.size > 0) {
      for (const k of this.found) this.record(k);
      this.found.clear();
    }
    return out;
  }

  /** A value that a sensitive key names: filtered whole, unless empty already. */
  filtered(v: unknown, kind: "key" | "cookie" | "ip"): unknown {
    if (v === null || v === undefined || v === "" || v === FILTERED) return v;
    this.record(kind);
    return FILTERED;
  }

  value(v: unknown, mode: Mode): unknown {
    if (typeof v === "string") return this.string(v);
    if (typeof v === "number") {
      // A card number sent as a JSON number (exact up to 2^53, i.e. 15–16 digits).
      if (v >= 1e12 && Number.isInteger(v) && isCardNumber(String(v))) {
        this.record("credit_card");
        return FILTERED;
      }
      return v;
    }
    if (Array.isArray(v)) return this.array(v, mode);
    if (isObj(v)) return this.object(v, mode);
    return v;
  }

  array(list: unknown[], mode: Mode): unknown[] {
    let out: unknown[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      // Scalars need no path unless something is found; only containers and hits push.
      let next: unknown;
      if (typeof item === "object" && item !== null) {
        this.enter(i);
        next = this.value(item, mode);
        this.leave();
      } else next = this.scalar(item, i, mode);
      if (next !== item && !out) out = list.slice(0, i);
      if (out) out.push(next);
    }
    return out ?? list;
  }

  /** A string or number: scanned without touching the path; the path only when it changed. */
  scalar(item: unknown, segment: string | number, mode: Mode): unknown {
    if (typeof item === "string") {
      const out = this.keys.scrub(item, this.found);
      if (this.found.size > 0) {
        this.at(segment, () => {
          for (const k of this.found) this.record(k);
        });
        this.found.clear();
      }
      return out;
    }
    if (typeof item === "number" && item >= 1e12) return this.at(segment, () => this.value(item, mode));
    return item;
  }

  object(obj: Obj, mode: Mode, childMode?: (key: string) => Mode): Obj {
    let out: Obj | undefined;
    for (const key in obj) {
      const item = obj[key];
      let next: unknown;
      if (this.keys.isSafe(key)) next = item;
      else if (mode === "all") next = this.at(key, () => this.filtered(item, "cookie"));
      else if (mode === "keys" && this.keys.isSensitive(key)) next = this.at(key, () => this.filtered(item, "key"));
      else if (typeof item === "object" && item !== null) {
        this.enter(key);
        next = this.value(item, childMode ? childMode(key) : mode);
        this.leave();
      } else next = this.scalar(item, key, childMode ? childMode(key) : mode);
      if (next !== item) {
        out ??= { ...obj };
        out[key] = next;
      }
    }
    return out ?? obj;
  }

  /** `[key, value]` pairs (headers, cookies, query string, tags). */
  pairs(list: unknown, mode: Mode): unknown {
    if (!Array.isArray(list)) return this.value(list, mode);
    let out: unknown[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const pair = list[i];
      let next: unknown = pair;
      if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string") {
        const [key, value] = pair as [string, unknown];
        let v: unknown;
        if (this.keys.isSafe(key)) v = value;
        else if (mode === "all") v = this.at(key, () => this.filtered(value, "cookie"));
        else if (this.keys.isSensitive(key)) v = this.at(key, () => this.filtered(value, "key"));
        else v = this.at(key, () => this.value(value, "strings"));
        if (v !== value) next = [key, v];
      } else next = this.at(i, () => this.value(pair, mode));
      if (next !== pair && !out) out = list.slice(0, i);
      if (out) out.push(next);
    }
    return out ?? list;
  }

  /** `request.data`: an object, or text that may be JSON or a form body. */
  requestData(data: unknown): unknown {
    if (typeof data !== "string") return this.value(data, "keys");
    const t = data.trimStart();
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(data);
        const next = this.value(parsed, "keys");
        return next === parsed ? data : JSON.stringify(next);
      } catch {
        // Not JSON after all (or cut by trimming): the string patterns catch `"key": "value"`.
      }
    }
    return this.string(data);
  }
}

function scrubRequest(s: Scrubber, req: unknown, scrubIp: boolean): unknown {
  if (!isObj(req)) return s.value(req, "strings");
  let out: Obj | undefined;
  for (const key of Object.keys(req)) {
    const v = req[key];
    const next = s.at(key, () => {
      if (key === "headers") return scrubHeaders(s, v, scrubIp);
      if (key === "cookies") return s.pairs(v, "all");
      if (key === "query_string") return s.pairs(v, "keys");
      if (key === "data") return s.requestData(v);
      if (key === "env") return scrubEnv(s, v, scrubIp);
      return s.value(v, "strings");
    });
    if (next !== v) {
      out ??= { ...req };
      out[key] = next;
    }
  }
  return out ?? req;
}

function scrubHeaders(s: Scrubber, headers: unknown, scrubIp: boolean): unknown {
  const scrubbed = s.pairs(headers, "keys");
  if (!scrubIp || !Array.isArray(scrubbed)) return scrubbed;
  let changed = false;
  const out = scrubbed.map((pair: unknown) => {
    if (!Array.isArray(pair) || typeof pair[0] !== "string" || !IP_HEADERS.has(pair[0].toLowerCase())) return pair;
    const v = s.at(pair[0], () => s.filtered(pair[1], "ip"));
    if (v === pair[1]) return pair;
    changed = true;
    return [pair[0], v];
  });
  return changed ? out : scrubbed;
}

function scrubEnv(s: Scrubber, env: unknown, scrubIp: boolean): unknown {
  const scrubbed = s.value(env, "keys");
  if (!scrubIp || !isObj(scrubbed) || scrubbed.REMOTE_ADDR === undefined) return scrubbed;
  s.at("REMOTE_ADDR", () => s.record("ip"));
  const { REMOTE_ADDR: _ip, ...rest } = scrubbed;
  return rest;
}

function scrubUser(s: Scrubber, user: unknown, scrubIp: boolean): unknown {
  if (!isObj(user)) return s.value(user, "strings");
  let out = s.object(user, "keys");
  if (scrubIp && out.ip_address !== undefined) {
    s.at("ip_address", () => s.record("ip"));
    const { ip_address: _ip, ...rest } = out;
    out = rest;
  }
  return out;
}

function scrubBreadcrumbs(s: Scrubber, crumbs: unknown): unknown {
  if (!isObj(crumbs) || !Array.isArray(crumbs.values)) return s.value(crumbs, "strings");
  const values = crumbs.values;
  const crumbMode = (key: string): Mode => (key === "data" ? "keys" : "strings");
  const next = s.at("values", () => {
    let out: unknown[] | undefined;
    for (let i = 0; i < values.length; i++) {
      const crumb = values[i];
      const c = isObj(crumb) ? s.at(i, () => s.object(crumb, "strings", crumbMode)) : crumb;
      if (c !== crumb && !out) out = values.slice(0, i);
      if (out) out.push(c);
    }
    return out;
  });
  return next ? { ...crumbs, values: next } : crumbs;
}

/** Walks exception/threads/stacktrace: frame `vars` are checked by key, every string by pattern. */
function scrubStackHolder(s: Scrubber, v: unknown): unknown {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      let next: unknown;
      if (typeof item === "object" && item !== null) {
        s.enter(i);
        next = scrubStackHolder(s, item);
        s.leave();
      } else next = s.scalar(item, i, "strings");
      if (next !== item && !out) out = v.slice(0, i);
      if (out) out.push(next);
    }
    return out ?? v;
  }
  if (!isObj(v)) return s.value(v, "strings");
  let out: Obj | undefined;
  for (const key in v) {
    const item = v[key];
    let next: unknown;
    if (typeof item !== "object" || item === null) next = s.scalar(item, key, "strings");
    else if (key === "vars") next = s.at(key, () => s.value(item, "keys"));
    else {
      s.enter(key);
      next = scrubStackHolder(s, item);
      s.leave();
    }
    if (next !== item) {
      out ??= { ...v };
      out[key] = next;
    }
  }
  return out ?? v;
}

const SKIP = new Set(["errata", "event_id", "timestamp", "received", "level", "platform"]);
const KEYED = new Set(["extra", "contexts"]);
const STACK_HOLDERS = new Set(["exception", "threads", "stacktrace"]);

/**
 * Returns the event with secrets removed (the same object when nothing was found) and `scrubbed`
 * notes appended to `errata.notes`.
 */
export function scrubEvent(event: NormalizedEvent, settings: ScrubSettings = DEFAULT_SCRUB_SETTINGS): NormalizedEvent {
  if (!settings.enabled) return event;
  const s = new Scrubber(settings);
  let out: NormalizedEvent | undefined;
  for (const key in event) {
    if (SKIP.has(key)) continue;
    const v = event[key];
    const next = s.at(key, () => {
      if (KEYED.has(key)) return s.value(v, "keys");
      if (key === "tags") return s.pairs(v, "keys");
      if (key === "request") return scrubRequest(s, v, settings.scrubIp);
      if (key === "user") return scrubUser(s, v, settings.scrubIp);
      if (key === "breadcrumbs") return scrubBreadcrumbs(s, v);
      if (STACK_HOLDERS.has(key)) return scrubStackHolder(s, v);
      return s.value(v, "strings");
    });
    if (next !== v) {
      out ??= { ...event };
      out[key] = next;
    }
  }
  if (!out) return event;
  out.errata = { ...event.errata, notes: [...event.errata.notes, ...notesOf(s.removed)] };
  return out;
}

/**
 * Scrubs a free-form payload (spans, logs) with the project's settings: values under sensitive keys
 * and secrets found in any string. Returns the same object when nothing was found.
 */
export function scrubData<T>(value: T, settings: ScrubSettings = DEFAULT_SCRUB_SETTINGS): T {
  if (!settings.enabled) return value;
  return new Scrubber(settings).value(value, "keys") as T;
}

function notesOf(removed: Map<string, Set<string>>): ProcessingNote[] {
  const notes: ProcessingNote[] = [];
  for (const [path, kinds] of removed) {
    if (notes.length === MAX_NOTES) {
      notes.push({ type: "scrubbed", detail: `…and ${removed.size - MAX_NOTES} more scrubbed fields.` });
      break;
    }
    const what = [...kinds].map((k) => KIND_TEXT[k as keyof typeof KIND_TEXT] ?? k).join(", ");
    notes.push({ type: "scrubbed", path, detail: `Removed: ${what}.` });
  }
  return notes;
}

export { FILTERED } from "./patterns";
