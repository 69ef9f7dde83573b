/**
 * A small client for Sentry's REST API (sentry.io, self-hosted, GlitchTip, another Errata), used by
 * the importer. Every request goes through `safeRequest` under the installation's outbound policy.
 * It follows `Link` cursors, waits out 429s for as long as `Retry-After` says, and turns every way
 * a source can be wrong into one catalogue error (unreachable, token refused, not Sentry, failed).
 *
 * The token is sent only to the origin the operator gave: a `Link` pointing elsewhere (a proxy's
 * public name) is followed by its path and query on that same origin.
 */
import type { z } from "zod";
import { AppError } from "../../core/errors";
import { nextPageUrl } from "../../core/import/sentry";
import { OutboundError, type OutboundPolicy, type Resolver, safeRequest } from "../../net/safe-request";

export interface SentryClientOptions {
  /** The server's base URL (`https://sentry.example.com`); a trailing `/api/0` is tolerated. */
  url: string;
  token: string;
  policy: OutboundPolicy;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** 429 and 5xx answers retried this many times per request before giving up. */
  maxRetries?: number;
  /** Longest single wait for a `Retry-After`, in seconds (a source asking for more is given up on). */
  maxRetryAfterSeconds?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Called before each wait, so the CLI can say why it is pausing. */
  onWait?: (seconds: number, path: string) => void;
  resolve?: Resolver;
}

export interface SentryClient {
  /** The base URL requests go to (normalised). */
  readonly base: string;
  get<T>(path: string, schema: z.ZodType<T>, notFound?: AppError): Promise<T>;
  /** Every row of a paginated list, page by page through `Link` cursors; `enough` stops after the page where it holds. */
  list<T>(path: string, schema: z.ZodType<T>, notFound?: AppError, enough?: (rows: T[]) => boolean): Promise<T[]>;
}

const MAX_PAGES = 10_000;

export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("import_source_unreachable", `Not a URL: "${raw}". Give the server's base URL, e.g. https://sentry.example.com.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError("import_source_unreachable", `Only http:// and https:// URLs can be imported from, not ${url.protocol}`);
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api\/0$/, "");
  return `${url.origin}${path}`;
}

export function createSentryClient(o: SentryClientOptions): SentryClient {
  const base = normaliseBaseUrl(o.url);
  const origin = new URL(base).origin;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxRetries = o.maxRetries ?? 5;
  const maxWait = o.maxRetryAfterSeconds ?? 120;

  async function request(url: string, label: string): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    for (let attempt = 0; ; attempt++) {
      let res: Awaited<ReturnType<typeof safeRequest>>;
      try {
        res = await safeRequest(
          url,
          {
            headers: { authorization: `Bearer ${o.token}`, accept: "application/json", "user-agent": "errata-import/1" },
            timeoutMs: o.timeoutMs ?? 30_000,
            maxBodyBytes: o.maxBodyBytes ?? 32 << 20,
            maxRedirects: 3,
          },
          o.policy,
          o.resolve,
        );
      } catch (err) {
        if (err instanceof OutboundError) throw new AppError("import_source_unreachable", `${base}: ${err.message}.`);
        throw err;
      }
      const retryable = res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504;
      if (!retryable) return res;
      if (attempt >= maxRetries) {
        throw new AppError(
          "import_source_failed",
          `${label}: the server answered ${res.status} ${maxRetries + 1} times; run the import again to resume.`,
        );
      }
      const seconds = retryAfterSeconds(res.headers["retry-after"], attempt);
      if (seconds > maxWait) {
        throw new AppError(
          "import_source_failed",
          `${label}: the server asks to wait ${seconds} s (rate limit); run the import again later.`,
        );
      }
      o.onWait?.(seconds, label);
      await sleep(seconds * 1000);
    }
  }

  function parse<T>(res: { status: number; headers: Record<string, string>; body: Buffer }, label: string, schema: z.ZodType<T>): T {
    const type = res.headers["content-type"] ?? "";
    if (!/json/i.test(type)) {
      throw new AppError(
        "import_not_sentry",
        `${label} answered ${type || "no content type"} instead of JSON: is ${base} the base URL of a Sentry server?`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString("utf8"));
    } catch {
      throw new AppError("import_not_sentry", `${label} answered invalid JSON.`);
    }
    const r = schema.safeParse(json);
    if (!r.success) {
      const where = r.error.issues[0]?.path.join(".") || "the answer";
      throw new AppError("import_not_sentry", `${label} answered JSON without Sentry's fields (${where}: ${r.error.issues[0]?.message}).`);
    }
    return r.data;
  }

  function check(res: { status: number; body: Buffer }, label: string, notFound?: AppError): void {
    if (res.status >= 200 && res.status < 300) return;
    if (res.status === 401 || res.status === 403) {
      throw new AppError("import_source_unauthorized", `${label} answered ${res.status}: the token is wrong, expired or lacks a scope.`);
    }
    if (res.status === 404) throw notFound ?? new AppError("import_source_not_found", `${label} answered 404.`);
    throw new AppError("import_source_failed", `${label} answered ${res.status}.`);
  }

  async function get<T>(path: string, schema: z.ZodType<T>, notFound?: AppError): Promise<T> {
    const res = await request(`${base}${path}`, path);
    check(res, path, notFound);
    return parse(res, path, schema);
  }

  async function list<T>(path: string, schema: z.ZodType<T>, notFound?: AppError, enough?: (rows: T[]) => boolean): Promise<T[]> {
    const rows: T[] = [];
    const seen = new Set<string>();
    let url: string | null = `${base}${path}`;
    for (let page = 0; url && page < MAX_PAGES; page++) {
      if (seen.has(url)) break; // a server repeating a cursor would loop forever
      seen.add(url);
      const res = await request(url, path);
      check(res, path, notFound);
      const pageRows = parse(res, path, schema.array());
      rows.push(...pageRows);
      if (enough?.(pageRows)) break;
      const next = nextPageUrl(res.headers.link);
      url = next && pageRows.length > 0 ? sameOrigin(next) : null;
    }
    return rows;
  }

  /** A `Link` URL taken by path and query onto the origin the operator gave (the token goes nowhere else). */
  function sameOrigin(link: string): string | null {
    try {
      const u = new URL(link, base);
      return `${origin}${u.pathname}${u.search}`;
    } catch {
      return null;
    }
  }

  return { base, get, list };
}

/** `Retry-After` in seconds (delta or HTTP date); absent or junk: a short backoff growing per attempt. */
export function retryAfterSeconds(header: string | undefined, attempt: number, now = Date.now()): number {
  const fallback = Math.min(2 ** attempt, 30);
  if (!header) return fallback;
  const n = Number(header.trim());
  if (Number.isFinite(n) && n >= 0) return Math.ceil(n);
  const at = Date.parse(header);
  if (Number.isFinite(at)) return Math.max(0, Math.ceil((at - now) / 1000));
  return fallback;
}
