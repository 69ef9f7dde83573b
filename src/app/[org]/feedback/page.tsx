import type { Metadata } from "next";
import Link from "next/link";
import { FeedbackList } from "@/ui/feedback/list";
import { CodeBlock } from "@/ui/kit/code-block";
import { ProjectFilterForm } from "@/ui/kit/project-filter-form";
import { orNotFound, param, requireViewer, services, withQuery } from "../../_lib/server";

export const metadata: Metadata = { title: "Feedback" };

type SearchParams = Record<string, string | string[] | undefined>;

const WIDGET_SNIPPET = `// Browser SDKs: a feedback button on every page
Sentry.init({
  dsn: "…",
  integrations: [Sentry.feedbackIntegration({ colorScheme: "system" })],
});

// Or from your own form, optionally about an error
Sentry.captureFeedback({ name, email, message, associatedEventId: eventId });`;

/** What end users wrote, newest first, with the issue each report is about. */
export default async function FeedbackPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org } = await params;
  const sp = await searchParams;
  const project = param(sp.project)?.slice(0, 100) ?? "";
  const cursor = param(sp.cursor)?.slice(0, 200) ?? "";
  const base = `/${encodeURIComponent(org)}/feedback`;
  const viewer = await requireViewer(withQuery(base, { project, cursor }));
  const s = await services();
  const [projects, page] = await Promise.all([
    orNotFound(s.projects.list(viewer, org)),
    orNotFound(s.feedback.list(viewer, org, { project: project || undefined, cursor: cursor || null, limit: 50 })),
  ]);
  const now = Date.now();
  return (
    <main className="mx-auto max-w-[1100px] px-4 py-4">
      <header className="mb-3 flex flex-wrap items-center gap-3">
        <h1 className="text-[18px] font-semibold">User feedback</h1>
        <ProjectFilterForm id="feedback-project" action={base} projects={projects} selected={project} />
      </header>
      {page.items.length > 0 ? (
        <FeedbackList org={org} items={page.items} now={now} />
      ) : cursor ? (
        <p className="rounded-md border border-border px-4 py-6 text-fg-muted">No older feedback.</p>
      ) : (
        <section className="rounded-md border border-border px-6 py-6" aria-labelledby="no-feedback">
          <h2 id="no-feedback" className="text-[15px] font-semibold">
            No feedback yet
          </h2>
          <p className="mt-1 max-w-prose text-fg-muted">
            What your users write about a problem lands here, linked to the error they hit. The SDKs&apos; feedback widget, their
            crash-report dialog (<code>Sentry.showReportDialog</code>) and <code>captureFeedback</code> all work with Errata:
          </p>
          <CodeBlock className="mt-4 max-w-2xl" code={WIDGET_SNIPPET} copyLabel="Copy feedback snippet" />
        </section>
      )}
      <nav aria-label="Pages" className="mt-3 flex justify-end gap-2">
        {cursor ? (
          <Link href={withQuery(base, { project })} className="btn btn-sm">
            Newest
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link href={withQuery(base, { project, cursor: page.nextCursor })} className="btn btn-sm">
            Older →
          </Link>
        ) : null}
      </nav>
    </main>
  );
}
