/**
 * SDK setup guides: numbered steps with copyable snippets for Next.js, React, browser JavaScript,
 * Node.js and Python, and a list of one-line setups for the other platforms. Errata speaks the
 * Sentry protocol, so every snippet is the official SDK with nothing but the DSN changed.
 */
import Link from "next/link";
import type { ReactNode } from "react";
import { CodeBlock } from "../kit/code-block";
import type { GuideId } from "./platforms";

export const GUIDE_TABS: ReadonlyArray<{ id: GuideId; label: string }> = [
  { id: "nextjs", label: "Next.js" },
  { id: "react", label: "React" },
  { id: "browser", label: "Browser JavaScript" },
  { id: "node", label: "Node.js" },
  { id: "python", label: "Python" },
  { id: "other", label: "Other platforms" },
];

export interface GuideContext {
  dsn: string;
  org: string;
  project: string;
  /** Errata's public URL (for sentry-cli's SENTRY_URL) */
  publicUrl: string;
}

const q = (s: string) => JSON.stringify(s);

const DIGEST_HOOK = `  // Links the browser's error page to the server error with the same digest.
  beforeSend(event, hint) {
    const digest = (hint.originalException as { digest?: unknown } | undefined)?.digest;
    if (typeof digest === "string") event.tags = { ...event.tags, digest };
    return event;
  },`;

function sourceMapSteps(c: GuideContext, dir: string): string {
  return `# A token with the project:releases scope: errata token create --email you@example.com --scopes project:releases
export SENTRY_URL=${c.publicUrl}
export SENTRY_AUTH_TOKEN=…

npx @sentry/cli sourcemaps inject ${dir}
npx @sentry/cli sourcemaps upload --org ${c.org} --project ${c.project} ${dir}`;
}

interface Step {
  title: string;
  body?: ReactNode;
  blocks?: Array<{ label: string; code: string }>;
}

function steps(guide: GuideId, c: GuideContext): Step[] {
  switch (guide) {
    case "nextjs":
      return [
        { title: "Install the SDK", blocks: [{ label: "Terminal", code: "npm install @sentry/nextjs" }] },
        {
          title: "Initialise it on the server and in the browser",
          body: "Two config files with the same DSN. The beforeSend hook is optional: it lets Errata link the digest Next.js shows on its error page to the server exception.",
          blocks: [
            {
              label: "sentry.server.config.ts",
              code: `import * as Sentry from "@sentry/nextjs";

Sentry.init({
  dsn: ${q(c.dsn)},
${DIGEST_HOOK}
});`,
            },
            {
              label: "instrumentation-client.ts",
              code: `import * as Sentry from "@sentry/nextjs";

Sentry.init({
  dsn: ${q(c.dsn)},
${DIGEST_HOOK}
});`,
            },
          ],
        },
        {
          title: "Report server errors and render errors",
          blocks: [
            {
              label: "instrumentation.ts",
              code: `import * as Sentry from "@sentry/nextjs";

export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") await import("./sentry.server.config");
}

// Next calls this for every server error, with its digest.
export const onRequestError = Sentry.captureRequestError;`,
            },
            {
              label: "app/global-error.tsx",
              code: `"use client";
import * as Sentry from "@sentry/nextjs";
import { useEffect } from "react";

export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  useEffect(() => {
    Sentry.captureException(error);
  }, [error]);
  return (
    <html lang="en">
      <body>Something went wrong.</body>
    </html>
  );
}`,
            },
          ],
        },
        {
          title: "Upload source maps (optional)",
          body: "Readable stack traces for minified code. With the build plugin, point it at Errata:",
          blocks: [
            {
              label: "next.config.ts",
              code: `import { withSentryConfig } from "@sentry/nextjs/config";

export default withSentryConfig(nextConfig, {
  sentryUrl: ${q(c.publicUrl)},
  org: ${q(c.org)},
  project: ${q(c.project)},
  authToken: process.env.SENTRY_AUTH_TOKEN,
  telemetry: false,
});`,
            },
          ],
        },
      ];
    case "react":
      return [
        { title: "Install the SDK", blocks: [{ label: "Terminal", code: "npm install @sentry/react" }] },
        {
          title: "Initialise it before rendering",
          body: "React 19 hands every caught and uncaught error to the root's handlers; Sentry's reactErrorHandler reports them.",
          blocks: [
            {
              label: "main.tsx",
              code: `import * as Sentry from "@sentry/react";
import { createRoot } from "react-dom/client";
import { App } from "./App";

Sentry.init({
  dsn: ${q(c.dsn)},
  release: import.meta.env.VITE_RELEASE,
});

createRoot(document.getElementById("root")!, {
  onUncaughtError: Sentry.reactErrorHandler(),
  onCaughtError: Sentry.reactErrorHandler(),
  onRecoverableError: Sentry.reactErrorHandler(),
}).render(<App />);`,
            },
          ],
        },
        {
          title: "Show a fallback (and ask for feedback)",
          blocks: [
            {
              label: "App.tsx",
              code: `<Sentry.ErrorBoundary fallback={<p>Something went wrong.</p>} showDialog>
  <Checkout />
</Sentry.ErrorBoundary>`,
            },
          ],
        },
        { title: "Upload source maps (optional)", blocks: [{ label: "After the build", code: sourceMapSteps(c, "./dist") }] },
      ];
    case "browser":
      return [
        { title: "Install the SDK", blocks: [{ label: "Terminal", code: "npm install @sentry/browser" }] },
        {
          title: "Initialise it as early as possible",
          body: "Uncaught errors and unhandled promise rejections are reported from then on.",
          blocks: [
            {
              label: "main.js",
              code: `import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: ${q(c.dsn)},
  release: "my-app@1.0.0",
  environment: "production",
});`,
            },
          ],
        },
        {
          title: "Report what you catch",
          blocks: [
            {
              label: "Anywhere",
              code: `try {
  await checkout(cart);
} catch (err) {
  Sentry.captureException(err);
}`,
            },
          ],
        },
        { title: "Upload source maps (optional)", blocks: [{ label: "After the build", code: sourceMapSteps(c, "./dist") }] },
      ];
    case "node":
      return [
        { title: "Install the SDK", blocks: [{ label: "Terminal", code: "npm install @sentry/node" }] },
        {
          title: "Initialise it before anything else loads",
          blocks: [
            {
              label: "instrument.mjs",
              code: `import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: ${q(c.dsn)},
  release: process.env.RELEASE,
  environment: process.env.NODE_ENV,
});`,
            },
            { label: "Start the app with it", code: "node --import ./instrument.mjs server.mjs" },
          ],
        },
        {
          title: "Report request errors (Express)",
          blocks: [
            {
              label: "server.mjs",
              code: `import * as Sentry from "@sentry/node";
import express from "express";

const app = express();
// … routes …
Sentry.setupExpressErrorHandler(app);
app.listen(3000);`,
            },
          ],
        },
      ];
    case "python":
      return [
        { title: "Install the SDK", blocks: [{ label: "Terminal", code: 'pip install --upgrade "sentry-sdk"' }] },
        {
          title: "Initialise it at start-up",
          body: "Django, Flask, FastAPI and friends are picked up automatically.",
          blocks: [
            {
              label: "app.py",
              code: `import sentry_sdk

sentry_sdk.init(
    dsn=${q(c.dsn)},
    release="my-app@1.0.0",
    environment="production",
)`,
            },
          ],
        },
      ];
    case "other":
      return [
        {
          title: "Any official Sentry SDK works: give it this DSN",
          body: "Errata speaks the Sentry protocol. Events, sessions, user feedback and attachments are stored; performance data (transactions, spans, replays, profiles) is accepted and dropped, so leave tracing off to save bandwidth.",
          blocks: OTHER_PLATFORMS.map((p) => ({ label: p.label, code: p.code(c.dsn) })),
        },
      ];
  }
}

const OTHER_PLATFORMS: ReadonlyArray<{ label: string; code: (dsn: string) => string }> = [
  { label: "Go — github.com/getsentry/sentry-go", code: (dsn) => `sentry.Init(sentry.ClientOptions{Dsn: ${q(dsn)}})` },
  { label: "Ruby — gem sentry-ruby", code: (dsn) => `Sentry.init { |config| config.dsn = ${q(dsn)} }` },
  { label: "PHP — composer require sentry/sentry", code: (dsn) => `\\Sentry\\init(['dsn' => ${q(dsn)}]);` },
  { label: "Java — io.sentry:sentry", code: (dsn) => `Sentry.init(options -> options.setDsn(${q(dsn)}));` },
  { label: ".NET — dotnet add package Sentry", code: (dsn) => `SentrySdk.Init(o => o.Dsn = ${q(dsn)});` },
  { label: "Rust — sentry crate", code: (dsn) => `let _guard = sentry::init((${q(dsn)}, sentry::ClientOptions::default()));` },
  { label: "React Native — @sentry/react-native", code: (dsn) => `Sentry.init({ dsn: ${q(dsn)} });` },
  {
    label: "Flutter — sentry_flutter",
    code: (dsn) => `await SentryFlutter.init((o) => o.dsn = ${q(dsn)}, appRunner: () => runApp(const App()));`,
  },
  { label: "Anything else — environment variable read by most SDKs", code: (dsn) => `SENTRY_DSN=${dsn}` },
];

/** The numbered steps of one guide. */
export function SdkGuide({ guide, ...c }: { guide: GuideId } & GuideContext) {
  const list = steps(guide, c);
  return (
    <ol className="flex flex-col gap-6">
      {list.map((s, i) => (
        <li key={s.title} className="grid grid-cols-[24px_minmax(0,1fr)] gap-x-3">
          <span
            aria-hidden="true"
            className="tabular mt-px flex h-6 w-6 items-center justify-center rounded-full border border-border-strong text-[12px] font-medium text-fg-muted"
          >
            {i + 1}
          </span>
          <div className="min-w-0">
            <h3 className="text-[14px] leading-6 font-semibold">{s.title}</h3>
            {s.body ? <p className="mt-0.5 max-w-prose text-fg-muted">{s.body}</p> : null}
            {s.blocks ? (
              <div className="mt-2 flex flex-col gap-2">
                {s.blocks.map((b) => (
                  <CodeBlock key={b.label} label={b.label} code={b.code} copyLabel={`Copy ${b.label}`} />
                ))}
              </div>
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** Platform tabs as links (no script needed); `current` is highlighted. */
export function GuideTabs({ current, href }: { current: GuideId; href: (id: GuideId) => string }) {
  return (
    <nav aria-label="Platforms" className="-mx-1 flex gap-1 overflow-x-auto px-1 pb-1">
      {GUIDE_TABS.map((t) => (
        <Link
          key={t.id}
          href={href(t.id)}
          scroll={false}
          aria-current={t.id === current ? "page" : undefined}
          className={`btn btn-sm shrink-0 ${t.id === current ? "border-fg font-semibold" : "btn-ghost text-fg-muted"}`}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
