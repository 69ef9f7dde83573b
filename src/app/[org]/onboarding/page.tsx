import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { CodeBlock } from "@/ui/kit/code-block";
import { type GuideId, guideFor } from "@/ui/onboarding/platforms";
import { ProjectCreateForm } from "@/ui/onboarding/project-create-form";
import { GUIDE_TABS, GuideTabs, SdkGuide } from "@/ui/onboarding/sdk-guides";
import { OnboardingSteps } from "@/ui/onboarding/steps";
import { type FirstIssue, OnboardingWait } from "@/ui/onboarding/wait";
import { orNotFound, param, requireViewer, services, withQuery } from "../../_lib/server";
import { createProjectAction } from "../projects/actions";

export const metadata: Metadata = { title: "Get started" };

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * The guided first project: create it (name + platform), set up the SDK with its DSN, then wait
 * live for the first event and open its issue.
 */
export default async function OnboardingPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org } = await params;
  const sp = await searchParams;
  const projectSlug = param(sp.project)?.slice(0, 100) ?? "";
  const asked = param(sp.platform);
  const orgPath = `/${encodeURIComponent(org)}`;
  const here = withQuery(`${orgPath}/onboarding`, { project: projectSlug, platform: asked });
  const viewer = await requireViewer(here);
  const s = await services();
  const canManage = (await orNotFound(s.orgs.can(viewer, org)))["project.write"];

  if (!projectSlug) {
    const existing = await orNotFound(s.projects.list(viewer, org));
    const teams = canManage ? (await s.teams.page(viewer, org)).teams : [];
    return (
      <Shell step={1} title={existing.length === 0 ? "Create your first project" : "Create a project"}>
        <p className="mb-5 max-w-prose text-fg-muted">
          A project is one app or service sending errors. Pick its platform and the next step shows the SDK setup with its DSN filled in.
        </p>
        {canManage ? (
          <ProjectCreateForm action={createProjectAction} org={org} then="onboarding" teams={teams} />
        ) : (
          <p className="rounded-md border border-border bg-subtle px-3 py-2 text-fg-muted">
            Only admins and owners can create projects. Ask one of them, or{" "}
            <Link href={`${orgPath}/issues`} className="underline underline-offset-2 hover:text-fg">
              go to Issues
            </Link>
            .
          </p>
        )}
      </Shell>
    );
  }

  const project = await orNotFound(s.projects.get(viewer, org, projectSlug));
  const found = await s.issueStream.firstIssue(viewer, org, project.slug);
  const initial: FirstIssue | null = found ? { id: found.id, shortId: found.shortId, title: found.title, level: found.level } : null;
  const guide: GuideId = GUIDE_TABS.some((t) => t.id === asked) ? (asked as GuideId) : guideFor(project.platform);
  const statusUrl = `${orgPath}/onboarding/status?project=${encodeURIComponent(project.slug)}`;
  return (
    <Shell step={initial ? 4 : 2} title={initial ? `${project.name} is sending events` : `Set up ${project.name}`}>
      <section aria-label="First event" className="mb-6 rounded-md border border-border px-4 py-4">
        <OnboardingWait statusUrl={statusUrl} orgPath={orgPath} initial={initial} />
      </section>
      {project.dsn ? (
        <>
          <div data-testid="project-dsn">
            <CodeBlock label="DSN" code={project.dsn} copyLabel="Copy DSN" />
          </div>
          <div className="mt-5">
            <GuideTabs current={guide} href={(id) => withQuery(`${orgPath}/onboarding`, { project: project.slug, platform: id })} />
          </div>
          <div className="mt-4" data-testid="sdk-guide" data-guide={guide}>
            <SdkGuide guide={guide} dsn={project.dsn} org={org} project={project.slug} publicUrl={s.publicUrl} />
          </div>
          <p className="mt-6 text-[12.5px] text-fg-muted">
            No app at hand? Send a test event from the server:{" "}
            <code className="break-all text-fg">errata send-test-event --dsn {project.dsn}</code>
          </p>
        </>
      ) : (
        <p className="text-fg-muted">This project has no active key.</p>
      )}
      <p className="mt-6 border-t border-border pt-4 text-[12.5px] text-fg-muted">
        Keys, retention and scrubbing live in the{" "}
        <Link
          href={`${orgPath}/projects/${encodeURIComponent(project.slug)}/settings`}
          className="underline underline-offset-2 hover:text-fg"
        >
          project&apos;s settings
        </Link>
        .
      </p>
    </Shell>
  );
}

function Shell({ step, title, children }: { step: 1 | 2 | 4; title: string; children: ReactNode }) {
  return (
    <main className="mx-auto max-w-[860px] px-4 py-6">
      <OnboardingSteps current={step} />
      <h1 className="mt-5 mb-2 text-[20px] font-semibold">{title}</h1>
      {children}
    </main>
  );
}
