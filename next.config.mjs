// Plain JavaScript, not next.config.ts: Next.js compiles a TypeScript config with SWC on every
// start, which maps its 24 MB native binding into the running server (resident, never used again).
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectDir = path.dirname(fileURLToPath(import.meta.url));

/** @type {import("next").NextConfig} */
const nextConfig = {
  // Sentry tools call `/api/0/…/` with a trailing slash; never redirect them (trailingSlash: true breaks Better Auth).
  skipTrailingSlashRedirect: true,
  // Type checking runs separately (`npm run typecheck`).
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  // Errata's server compresses (src/server/http/compress-responses.ts): the REST API at a faster level.
  compress: false,
  reactStrictMode: true,
  // Load a route's server code on its first request, not all ~200 routes at start (Next's default
  // preloads every entry): measured 28 Nov, idle RSS after start 8-10 MB lower (167-170 against
  // 178 MB). The first request to each route pays its load instead.
  experimental: { preloadEntriesOnStart: false },
  // Native or server-only packages: loaded from node_modules at run time, never bundled.
  serverExternalPackages: ["better-sqlite3", "better-sqlite3-napi9", "pg", "pino", "kysely", "better-auth", "@node-rs/argon2"],
  // Pin the project root (silences the multiple-lockfile warning on machines with a parent lockfile).
  turbopack: { root: projectDir },
  outputFileTracingRoot: projectDir,
  // Sentry's own URL scheme, which its clients print as links (the MCP server, the sentry CLI):
  // /organizations/{org}/issues/WEB-1/ opens Errata's page for the same issue (short ids resolve there).
  async redirects() {
    return [
      { source: "/organizations/:org/issues/:path*", destination: "/:org/issues/:path*", permanent: false },
      { source: "/organizations/:org/releases/:path*", destination: "/:org/releases/:path*", permanent: false },
      // Replays: Sentry prints /explore/replays/{id}/ (and older /replays/{id}/).
      { source: "/organizations/:org/explore/replays/:path*", destination: "/:org/replays/:path*", permanent: false },
      { source: "/organizations/:org/replays/:path*", destination: "/:org/replays/:path*", permanent: false },
      // Explore links (traces, logs, discover): /{org}/explore/… resolves each to a trace or a list.
      { source: "/organizations/:org/explore/:path*", destination: "/:org/explore/:path*", permanent: false },
    ];
  },
};

export default nextConfig;
