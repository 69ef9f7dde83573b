/**
 * The event's request as a `curl` command, built as plain text with every argument single-quoted
 * for POSIX shells (a quote inside becomes '\''), so nothing from the event can break out of its
 * argument when pasted into a terminal.
 */

export function shellQuote(s: string): string {
  // Control characters (newlines included) cannot be pasted safely inside quotes: make them visible.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  const clean = s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return `'${clean.replace(/'/g, "'\\''")}'`;
}

const SKIP_HEADERS = new Set(["content-length", "host", "connection"]);

export function curlCommand(r: {
  method?: string;
  url?: string;
  query?: string;
  headers: Array<[string, string]>;
  cookies: Array<[string, string]>;
  data?: string;
}): string | null {
  if (!r.url) return null;
  let url = r.url;
  if (r.query && !url.includes("?")) url += `?${r.query.replace(/^\?/, "")}`;
  const method = (r.method ?? "GET").toUpperCase();
  const lines = [method !== "GET" || r.data ? `curl -X ${shellQuote(method)} ${shellQuote(url)}` : `curl ${shellQuote(url)}`];
  for (const [k, v] of r.headers) {
    if (SKIP_HEADERS.has(k.toLowerCase())) continue;
    lines.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  }
  if (r.cookies.length > 0 && !r.headers.some(([k]) => k.toLowerCase() === "cookie")) {
    lines.push(`-b ${shellQuote(r.cookies.map(([k, v]) => `${k}=${v}`).join("; "))}`);
  }
  if (r.data) lines.push(`--data-raw ${shellQuote(r.data)}`);
  return lines.join(" \\\n  ");
}
