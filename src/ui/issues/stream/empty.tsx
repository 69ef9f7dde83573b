import type { ProjectSummary } from "@/server/types";
import { CodeBlock } from "../../kit/code-block";

function nodeSnippet(dsn: string): string {
  return `// npm install @sentry/node
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: ${JSON.stringify(dsn)},
});`;
}

function browserSnippet(dsn: string): string {
  return `// npm install @sentry/browser
import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: ${JSON.stringify(dsn)},
});`;
}

/** The stream with no issues teaches: each project's DSN and a snippet, then waits for the first event. */
export function StreamEmpty({ org, projects }: { org: string; projects: ProjectSummary[] }) {
  if (projects.length === 0) {
    return (
      <section className="rounded-md border border-border px-6 py-8" aria-labelledby="empty-title">
        <h2 id="empty-title" className="text-[15px] font-semibold">
          No projects yet
        </h2>
        <p className="mt-1 max-w-prose text-fg-muted">
          Errors arrive per project, each with its own DSN. Create the first project on the server, then reload this page:
        </p>
        <CodeBlock className="mt-4 max-w-2xl" code={`errata project create --org ${org} --name web`} copyLabel="Copy command" />
      </section>
    );
  }
  return (
    <section className="rounded-md border border-border px-6 py-6" aria-labelledby="empty-title">
      <div className="flex items-center gap-2">
        <span className="spinner text-fg-dim" aria-hidden="true" />
        <h2 id="empty-title" className="text-[15px] font-semibold">
          Waiting for the first event
        </h2>
      </div>
      <p className="mt-1 max-w-prose text-fg-muted">
        No issues yet. Point an official Sentry SDK at a DSN below and errors will show up here within seconds — this page updates by
        itself.
      </p>
      <div className="mt-6 flex flex-col gap-8">
        {projects.map((p) => (
          <div key={p.slug}>
            <h3 className="flex items-baseline gap-2">
              <span className="font-semibold">{p.name}</span>
              <span className="font-mono text-[12px] text-fg-dim">{p.slug}</span>
            </h3>
            {p.dsn ? (
              <>
                <CodeBlock className="mt-2" label="DSN" code={p.dsn} copyLabel={`Copy DSN of ${p.name}`} />
                <div className="mt-3 grid gap-3 lg:grid-cols-2">
                  <CodeBlock label="Node.js — @sentry/node" code={nodeSnippet(p.dsn)} copyLabel={`Copy Node.js snippet for ${p.name}`} />
                  <CodeBlock
                    label="Browser — @sentry/browser"
                    code={browserSnippet(p.dsn)}
                    copyLabel={`Copy browser snippet for ${p.name}`}
                  />
                </div>
                <p className="mt-2 text-[12px] text-fg-muted">
                  Or send a test event from the server: <code className="text-fg">errata send-test-event --dsn {p.dsn}</code>
                </p>
              </>
            ) : (
              <p className="mt-1 text-fg-muted">This project has no active DSN key.</p>
            )}
          </div>
        ))}
      </div>
    </section>
  );
}
