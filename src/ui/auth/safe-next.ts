/**
 * `?next=` after sign-in: only same-site relative paths ("/acme/issues?query=x"). Anything else
 * (absolute URLs, protocol-relative "//host", backslash tricks, control characters) gives null.
 */
export function safeNextPath(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2000) return null;
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return null;
  try {
    const base = "http://errata.invalid";
    const url = new URL(raw, base);
    if (url.origin !== base) return null;
    const path = `${url.pathname}${url.search}${url.hash}`;
    if (path.startsWith("/api/")) return null;
    return path;
  } catch {
    return null;
  }
}
