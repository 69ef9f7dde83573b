/**
 * Browser security reports (reference §2.6): the `/api/{id}/security/` (and `/csp-report/`)
 * endpoint takes CSP violation reports as browsers send them —
 *   `application/csp-report`   {"csp-report": {"document-uri": …, "violated-directive": …, …}}
 *   `application/reports+json` [{"type": "csp-violation", "url": …, "body": {"documentURL": …}}]
 * — authenticated by `?sentry_key=` (browsers cannot set headers), with optional
 * `sentry_environment` / `sentry_release`. Ingest splits the body into reports and queues each as
 * a `raw_security` envelope item (what the JS SDK sends too); the digest worker turns each into
 * an event fingerprinted `["csp", directive, blocked_uri]` (Bugsink's grouping for CSP).
 * Pure: no I/O.
 */
import { AppError } from "../core/errors";

/** A CSP report in `report-uri` form (hyphenated keys), whatever shape it arrived in. */
export type CspReport = Record<string, unknown>;

export interface SecurityBody {
  reports: CspReport[];
  /** entries that are not CSP violations (deprecation, intervention, expect-ct…): filtered */
  ignored: number;
}

/** At most this many reports are taken from one request; the rest count as ignored. */
export const MAX_REPORTS_PER_REQUEST = 100;

/** Reporting API (camelCase) → report-uri (hyphenated) keys. */
const REPORTING_KEYS: Record<string, string> = {
  documentURL: "document-uri",
  referrer: "referrer",
  blockedURL: "blocked-uri",
  effectiveDirective: "effective-directive",
  originalPolicy: "original-policy",
  disposition: "disposition",
  statusCode: "status-code",
  sample: "script-sample",
  sourceFile: "source-file",
  lineNumber: "line-number",
  columnNumber: "column-number",
};

/** Splits a security endpoint body into CSP reports. Throws invalid_json (400) when it is not JSON. */
export function parseSecurityBody(body: Buffer): SecurityBody {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    throw new AppError("invalid_json", "The security report is not valid JSON.");
  }
  const entries = Array.isArray(json) ? json : [json];
  const reports: CspReport[] = [];
  let ignored = 0;
  for (const entry of entries) {
    const report = reports.length < MAX_REPORTS_PER_REQUEST ? toCspReport(entry) : undefined;
    if (report) reports.push(report);
    else ignored += 1;
  }
  if (reports.length === 0 && ignored === 0) throw new AppError("invalid_json", "The security report is empty.");
  return { reports, ignored };
}

/** One entry (either format) → a report-uri style report, or undefined when it is not a CSP violation. */
export function toCspReport(entry: unknown): CspReport | undefined {
  if (!isObject(entry)) return undefined;
  const legacy = entry["csp-report"];
  if (isObject(legacy)) return { ...legacy };
  if (entry.type === "csp-violation" && isObject(entry.body)) {
    const out: CspReport = {};
    for (const [k, v] of Object.entries(entry.body)) out[REPORTING_KEYS[k] ?? k] = v;
    if (out["document-uri"] === undefined && typeof entry.url === "string") out["document-uri"] = entry.url;
    if (typeof entry.user_agent === "string") out["user-agent"] = entry.user_agent;
    return out;
  }
  // A bare report-uri object (some proxies unwrap it).
  if (typeof entry["violated-directive"] === "string" || typeof entry["effective-directive"] === "string") return { ...entry };
  return undefined;
}

const DIRECTIVE_KINDS: Record<string, string> = {
  "child-src": "child",
  "connect-src": "connect",
  "default-src": "default",
  "font-src": "font",
  "form-action": "form",
  "frame-ancestors": "frame-ancestor",
  "frame-src": "frame",
  "img-src": "image",
  "manifest-src": "manifest",
  "media-src": "media",
  "object-src": "object",
  "script-src": "script",
  "script-src-elem": "script",
  "script-src-attr": "script",
  "style-src": "style",
  "style-src-elem": "style",
  "style-src-attr": "style",
  "worker-src": "worker",
  "base-uri": "base-uri",
};

const MAX_FIELD = 1024;

/**
 * A CSP report (any accepted shape) → a Sentry-shaped event. `release`/`environment` come from the
 * endpoint's `sentry_release` / `sentry_environment` (item headers on the queue).
 */
export function securityReportToEvent(payload: unknown, opts: { release?: unknown; environment?: unknown }): Record<string, unknown> {
  const report = toCspReport(payload) ?? {};
  const directive = effectiveDirective(report);
  const blocked = text(report["blocked-uri"]) || "self";
  const documentUri = text(report["document-uri"]);
  const csp: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(report)) {
    if (v === null || typeof v === "object") continue;
    csp[k.replace(/-/g, "_")] = typeof v === "string" ? v.slice(0, MAX_FIELD) : v;
  }
  const event: Record<string, unknown> = {
    type: "csp",
    level: "error",
    platform: "javascript",
    logger: "csp",
    logentry: { formatted: cspMessage(directive, blocked) },
    culprit: text(report["violated-directive"]) || directive,
    fingerprint: ["csp", directive, blocked.slice(0, 200)],
    tags: { "effective-directive": directive, "blocked-uri": blocked.slice(0, 200) },
    csp,
  };
  if (documentUri) {
    const headers: Record<string, string> = {};
    const referrer = text(report.referrer);
    if (referrer) headers.Referer = referrer;
    const ua = text(report["user-agent"]);
    if (ua) headers["User-Agent"] = ua;
    event.request = { url: documentUri, headers };
  }
  if (typeof opts.release === "string" && opts.release) event.release = opts.release;
  if (typeof opts.environment === "string" && opts.environment) event.environment = opts.environment;
  return event;
}

function effectiveDirective(report: CspReport): string {
  const eff = text(report["effective-directive"]);
  if (eff) return eff.split(/\s+/)[0] as string;
  const violated = text(report["violated-directive"]);
  return (violated.split(/\s+/)[0] as string) || "unknown";
}

/** Sentry's wording: "Blocked 'script' from 'evil.example'", "Blocked inline 'style'", … */
export function cspMessage(directive: string, blocked: string): string {
  const kind = DIRECTIVE_KINDS[directive] ?? directive;
  if (blocked === "inline") return `Blocked inline '${kind}'`;
  if (blocked === "eval") return `Blocked 'eval' in '${kind}'`;
  if (blocked === "self") return `Blocked '${kind}' from 'self'`;
  if (blocked === "data" || blocked.startsWith("data:")) return `Blocked '${kind}' from 'data:'`;
  if (blocked === "blob" || blocked.startsWith("blob:")) return `Blocked '${kind}' from 'blob:'`;
  let where = blocked;
  try {
    where = new URL(blocked).host || blocked;
  } catch {
    // not a URL (e.g. a bare scheme): quoted as sent
  }
  return `Blocked '${kind}' from '${where.slice(0, 200)}'`;
}

function text(v: unknown): string {
  return typeof v === "string" ? v.trim().slice(0, MAX_FIELD) : typeof v === "number" ? String(v) : "";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
