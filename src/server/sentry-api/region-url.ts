/**
 * `links.regionUrl` of an organization: where Sentry's clients send its later requests. Sentry
 * self-hosted answers its own URL, and the uploader inside @sentry/nextjs 11 (the JS `sentry` CLI
 * 0.44) requires a non-empty one: it builds every later URL on it. The official MCP server alone
 * refuses a regionUrl that is not https (its SSRF guard, even for its own `--host`) and reads an
 * empty one as "self-hosted: stay on the host you were given". So: PUBLIC_URL, except for the MCP
 * server over plain http, which gets the empty string it understands.
 */
export function regionUrlFor(publicUrl: string, userAgent: string | null): string {
  const url = publicUrl.replace(/\/+$/, "");
  if (url.startsWith("https://")) return url;
  return isMcpServer(userAgent) ? "" : url;
}

/** `sentry-mcp/<version> (https://mcp.sentry.dev)` and `sentry-mcp-server/<version>`. */
function isMcpServer(userAgent: string | null): boolean {
  return userAgent !== null && /^sentry-mcp(-server)?\//.test(userAgent);
}
