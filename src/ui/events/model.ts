/**
 * Defensive readers for the stored Sentry event JSON. The payload comes from an SDK: any field may
 * be missing or of the wrong type. Each reader returns plain display data and records what it
 * could not read in `problems`, so the page renders what it can with a notice and never crashes.
 */
import { toMillis, toText } from "../kit/format";

type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

function int(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/** Sentry's `{values: [...]}` wrapper, or a bare list (older SDKs); null when neither. */
function values(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (isObj(v) && Array.isArray(v.values)) return v.values;
  return null;
}

export class Problems {
  readonly list: string[] = [];
  add(msg: string) {
    if (this.list.length < 20 && !this.list.includes(msg)) this.list.push(msg);
  }
}

// ---------------------------------------------------------------- stack traces

export interface FrameView {
  function?: string;
  filename?: string;
  module?: string;
  package?: string;
  lineno?: number;
  colno?: number;
  inApp: boolean;
  /** why a source map could not be applied to this frame (`frame.data.sourcemap_error`) */
  mapError?: string;
  contextLine?: string;
  pre: string[];
  post: string[];
  vars: [string, string][];
}

function lines(v: unknown): string[] {
  return Array.isArray(v) ? v.map((l) => toText(l, 2000)) : [];
}

export function readFrames(stacktrace: unknown, where: string, problems: Problems): FrameView[] {
  if (stacktrace === undefined || stacktrace === null) return [];
  if (!isObj(stacktrace)) {
    problems.add(`${where}.stacktrace is not an object`);
    return [];
  }
  const raw = stacktrace.frames;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.add(`${where}.stacktrace.frames is not a list`);
    return [];
  }
  const frames: FrameView[] = [];
  for (const f of raw) {
    if (!isObj(f)) {
      problems.add(`${where}.stacktrace.frames has entries that are not objects`);
      continue;
    }
    frames.push({
      function: str(f.function) ?? str(f.raw_function),
      filename: str(f.filename) ?? str(f.abs_path),
      module: str(f.module),
      package: str(f.package),
      lineno: int(f.lineno),
      colno: int(f.colno),
      inApp: f.in_app === true,
      mapError: isObj(f.data) ? str(f.data.sourcemap_error) : undefined,
      contextLine: typeof f.context_line === "string" ? f.context_line : undefined,
      pre: lines(f.pre_context),
      post: lines(f.post_context),
      vars: isObj(f.vars) ? Object.entries(f.vars).map(([k, v]) => [k, toText(v, 2000)]) : [],
    });
  }
  return frames;
}

// ---------------------------------------------------------------- exceptions

export interface ExceptionView {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: { type?: string; handled?: boolean; synthetic?: boolean };
  frames: FrameView[];
  /** the minified frames before source maps were applied (`raw_stacktrace`), when they were */
  rawFrames?: FrameView[];
}

/** Exceptions, main (newest, the last in the payload) first, then its causes. */
export function readExceptions(event: Obj, problems: Problems): ExceptionView[] {
  const ex = event.exception;
  if (ex === undefined || ex === null) return [];
  const list = values(ex);
  if (!list) {
    problems.add("exception.values is not a list");
    return [];
  }
  const out: ExceptionView[] = [];
  list.forEach((e, i) => {
    if (!isObj(e)) {
      problems.add(`exception.values[${i}] is not an object`);
      return;
    }
    const m = isObj(e.mechanism) ? e.mechanism : undefined;
    out.push({
      type: str(e.type),
      value: e.value === undefined || e.value === null ? undefined : toText(e.value),
      module: str(e.module),
      mechanism: m
        ? { type: str(m.type), handled: typeof m.handled === "boolean" ? m.handled : undefined, synthetic: m.synthetic === true }
        : undefined,
      frames: readFrames(e.stacktrace, `exception.values[${i}]`, problems),
      ...(isObj(e.raw_stacktrace) ? { rawFrames: readFrames(e.raw_stacktrace, `exception.values[${i}].raw`, problems) } : {}),
    });
  });
  return out.reverse();
}

/** The synthetic, typeless exception an SDK wraps a message's stack trace in (`captureMessage` + stack), if that is all there is. */
export function messageStandIn(exceptions: ExceptionView[]): ExceptionView | undefined {
  const only = exceptions.length === 1 ? exceptions[0] : undefined;
  return only && !only.type && only.mechanism?.synthetic === true ? only : undefined;
}

/** A stack trace outside an exception (threads, or a top-level `stacktrace` from attachStacktrace). */
export function readThreadFrames(event: Obj, problems: Problems): FrameView[] {
  const threads = values(event.threads);
  if (threads) {
    const withStack = threads.filter((t): t is Obj => isObj(t) && isObj(t.stacktrace));
    const chosen = withStack.find((t) => t.crashed === true) ?? withStack.find((t) => t.current === true) ?? withStack[0];
    if (chosen) return readFrames(chosen.stacktrace, "threads", problems);
  }
  return readFrames(event.stacktrace, "event", problems);
}

export function readMessage(event: Obj): string | undefined {
  const le = event.logentry;
  if (isObj(le)) {
    const f = str(le.formatted) ?? str(le.message);
    if (f) return f;
  }
  const m = event.message;
  if (typeof m === "string") return m;
  if (isObj(m)) return str(m.formatted) ?? str(m.message);
  return undefined;
}

// ---------------------------------------------------------------- breadcrumbs

export interface CrumbView {
  time: number | null;
  category?: string;
  type?: string;
  level?: string;
  message?: string;
  data: [string, string][];
}

/** Breadcrumbs, newest first. */
export function readBreadcrumbs(event: Obj, problems: Problems): CrumbView[] {
  const b = event.breadcrumbs;
  if (b === undefined || b === null) return [];
  const list = values(b);
  if (!list) {
    problems.add("breadcrumbs.values is not a list");
    return [];
  }
  const out: CrumbView[] = [];
  for (const c of list) {
    if (!isObj(c)) {
      problems.add("breadcrumbs has entries that are not objects");
      continue;
    }
    out.push({
      time: toMillis(c.timestamp),
      category: str(c.category),
      type: str(c.type),
      level: str(c.level),
      message: c.message === undefined || c.message === null ? undefined : toText(c.message, 4000),
      data: isObj(c.data)
        ? Object.entries(c.data).map(([k, v]) => [k, toText(v, 2000)])
        : c.data !== undefined
          ? [["data", toText(c.data, 2000)]]
          : [],
    });
  }
  return out.reverse();
}

// ---------------------------------------------------------------- key/value sections

export type Pairs = [string, string][];

/** `[key, value][]` pairs or an object, as display pairs. */
export function readPairs(v: unknown, where: string, problems: Problems): Pairs {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) {
    const out: Pairs = [];
    for (const p of v) {
      if (Array.isArray(p) && p.length >= 2) out.push([toText(p[0], 400), toText(p[1])]);
      else if (isObj(p) && "key" in p) out.push([toText(p.key, 400), toText(p.value)]);
      else problems.add(`${where} has entries that are not [key, value] pairs`);
    }
    return out;
  }
  if (isObj(v)) return Object.entries(v).map(([k, val]) => [k, toText(val)]);
  if (typeof v === "string" && where.endsWith("cookies")) return [["cookie", v]];
  problems.add(`${where} is neither a list of pairs nor an object`);
  return [];
}

export function readTags(event: Obj, problems: Problems): Pairs {
  return readPairs(event.tags, "tags", problems);
}

export interface ContextView {
  name: string;
  type?: string;
  pairs: Pairs;
}

export function readContexts(event: Obj, problems: Problems): ContextView[] {
  const c = event.contexts;
  if (c === undefined || c === null) return [];
  if (!isObj(c)) {
    problems.add("contexts is not an object");
    return [];
  }
  const out: ContextView[] = [];
  for (const [name, v] of Object.entries(c)) {
    if (isObj(v)) {
      if (Object.keys(v).filter((k) => k !== "type").length === 0) continue;
      out.push({
        name,
        type: str(v.type),
        pairs: Object.entries(v)
          .filter(([k]) => k !== "type")
          .map(([k, val]) => [k, toText(val)]),
      });
    } else if (v !== null && v !== undefined) {
      out.push({ name, pairs: [["value", toText(v)]] });
    }
  }
  return out;
}

export function readUser(event: Obj, problems: Problems): Pairs {
  const u = event.user;
  if (u === undefined || u === null) return [];
  if (!isObj(u)) {
    problems.add("user is not an object");
    return [];
  }
  const order = ["id", "email", "username", "name", "ip_address", "geo"];
  const entries = Object.entries(u).filter(([, v]) => v !== null && v !== undefined && v !== "");
  entries.sort(([a], [b]) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  return entries.map(([k, v]) => [k, toText(v)]);
}

export interface RequestView {
  method?: string;
  url?: string;
  query?: string;
  headers: Pairs;
  cookies: Pairs;
  data?: string;
  env: Pairs;
}

export function readRequest(event: Obj, problems: Problems): RequestView | null {
  const r = event.request;
  if (r === undefined || r === null) return null;
  if (!isObj(r)) {
    problems.add("request is not an object");
    return null;
  }
  let query: string | undefined;
  if (typeof r.query_string === "string") query = r.query_string;
  else if (r.query_string !== undefined && r.query_string !== null) {
    query = readPairs(r.query_string, "request.query_string", problems)
      .map(([k, v]) => `${k}=${v}`)
      .join("&");
  }
  return {
    method: str(r.method)?.toUpperCase(),
    url: str(r.url),
    query: query || undefined,
    headers: readPairs(r.headers, "request.headers", problems),
    cookies: readPairs(r.cookies, "request.cookies", problems),
    data: r.data === undefined || r.data === null ? undefined : typeof r.data === "string" ? toText(r.data) : safePretty(r.data),
    env: isObj(r.env) ? Object.entries(r.env).map(([k, v]) => [k, toText(v)]) : [],
  };
}

function safePretty(v: unknown): string {
  try {
    const s = JSON.stringify(v, null, 2) ?? "";
    return s.length > 20_000 ? `${s.slice(0, 20_000)}…` : s;
  } catch {
    return "[unserialisable value]";
  }
}

// ---------------------------------------------------------------- event summary and processing notes

/** The top-level facts about the event worth a glance: level, platform, release, environment, … */
export function readFacts(event: Obj): Pairs {
  const out: Pairs = [];
  const push = (k: string, v: unknown) => {
    const s = str(v);
    if (s) out.push([k, s]);
  };
  push("level", event.level);
  push("platform", event.platform);
  push("release", event.release);
  push("dist", event.dist);
  push("environment", event.environment);
  push("transaction", event.transaction);
  push("server_name", event.server_name);
  if (isObj(event.sdk)) {
    const name = str(event.sdk.name);
    const version = str(event.sdk.version);
    if (name) out.push(["sdk", version ? `${name} ${version}` : name]);
  }
  return out;
}

export interface NoteView {
  type: string;
  path?: string;
  detail: string;
}

export function readNotes(event: Obj, problems: Problems): { notes: NoteView[]; grouping: string[] } {
  const e = event.errata;
  if (e === undefined || e === null) return { notes: [], grouping: [] };
  if (!isObj(e)) {
    problems.add("errata is not an object");
    return { notes: [], grouping: [] };
  }
  const notes: NoteView[] = [];
  if (Array.isArray(e.notes)) {
    for (const n of e.notes) {
      if (isObj(n)) notes.push({ type: str(n.type) ?? "note", path: str(n.path), detail: toText(n.detail, 2000) });
      else if (n !== null && n !== undefined) notes.push({ type: "note", detail: toText(n, 2000) });
    }
  }
  const grouping = isObj(e.grouping) && Array.isArray(e.grouping.components) ? e.grouping.components.map((c) => toText(c, 1000)) : [];
  return { notes, grouping };
}
