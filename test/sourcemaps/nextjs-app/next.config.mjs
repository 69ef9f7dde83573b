// The e2e test copies this app under the repository's .tmp/ and passes ERRATA_REPO_ROOT, so
// Turbopack resolves `next`, `react` and `@sentry/nextjs` from the repository's node_modules. The
// source-map upload of @sentry/nextjs goes to Errata (SENTRY_URL and friends set by the test).
import path from "node:path";
import { withSentryConfig } from "@sentry/nextjs/config";

const root = process.env.ERRATA_REPO_ROOT ?? path.resolve("../../..");

export default withSentryConfig(
  { turbopack: { root }, outputFileTracingRoot: root, poweredByHeader: false },
  {
    sentryUrl: process.env.SENTRY_URL,
    org: process.env.SENTRY_ORG,
    project: process.env.SENTRY_PROJECT,
    authToken: process.env.SENTRY_AUTH_TOKEN,
    telemetry: false,
    silent: false,
  },
);
