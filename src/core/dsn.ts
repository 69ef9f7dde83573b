/**
 * DSN parsing and formatting (reference §1.1). A DSN is
 *   {scheme}://{public_key}[:{secret_key}]@{host}[:{port}]/[{path}/]{project_id}
 * The secret key is deprecated: parsed so old DSNs are accepted, never required or checked.
 */

export interface ParsedDsn {
  protocol: "http" | "https";
  publicKey: string;
  /** Deprecated secret; kept only so callers can tell it was there. */
  secretKey?: string;
  /** Host without port; IPv6 literals keep their brackets. */
  host: string;
  /** Port as written, "" when absent. */
  port: string;
  /** Sub-path before the project id, without leading/trailing slashes ("" when none). */
  path: string;
  /** Project id as a decimal string (leading digits of the last path segment, as the JS SDK does). */
  projectId: string;
}

// Same shape the JS SDK accepts: keys are \w+ (letters, digits, underscore), host may be [IPv6].
const DSN_RE = /^(https?):\/\/(\w+)(?::(\w*))?@(\[[0-9A-Fa-f:.%\w]+\]|[\w.-]+)(?::(\d+))?\/(.*)$/;

/** Parses a DSN string; null when it is not one (wrong scheme, no key, no numeric project id). */
export function parseDsn(dsn: string): ParsedDsn | null {
  if (typeof dsn !== "string" || dsn.length > 2048) return null;
  const m = DSN_RE.exec(dsn.trim());
  if (!m) return null;
  const [, protocol, publicKey, secretKey, host, port, rest] = m;
  // The project id is the last path segment; a trailing slash is tolerated.
  const segments = rest.replace(/\/+$/, "").split("/");
  const last = segments.pop() ?? "";
  const digits = /^\d+/.exec(last)?.[0];
  if (!digits) return null;
  return {
    protocol: protocol as "http" | "https",
    publicKey,
    ...(secretKey ? { secretKey } : {}),
    host,
    port: port ?? "",
    path: segments.filter(Boolean).join("/"),
    projectId: String(Number(digits)),
  };
}

/**
 * The DSN users paste into `Sentry.init` for a key of a project, built from the configured ingest
 * address (PUBLIC_INGEST_URL, else PUBLIC_URL; never from a request's Host header):
 * `http://<key>@host:port[/sub/path]/<projectId>`.
 */
export function formatDsn(publicUrl: string, publicKey: string, projectId: number | string): string {
  const url = new URL(publicUrl);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${publicKey}@${url.host}${path}/${projectId}`;
}

/**
 * The other ingest addresses of a DSN, as Sentry's key API lists them beside `public`: the CSP /
 * security report URL (`csp` and `security` are one endpoint) and the HTTP check-in URL of crons.
 * Derived from the DSN, so they follow PUBLIC_INGEST_URL too. Null for a string that is no DSN.
 */
export function dsnEndpoints(dsn: string): { csp: string; security: string; crons: string } | null {
  const d = parseDsn(dsn);
  if (!d) return null;
  const base = `${d.protocol}://${d.host}${d.port ? `:${d.port}` : ""}${d.path ? `/${d.path}` : ""}/api/${d.projectId}`;
  const security = `${base}/security/?sentry_key=${d.publicKey}`;
  return { csp: security, security, crons: `${base}/cron/___MONITOR_SLUG___/${d.publicKey}/` };
}
