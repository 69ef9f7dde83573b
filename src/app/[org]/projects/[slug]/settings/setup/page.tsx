import type { Metadata } from "next";
import Link from "next/link";
import { CodeBlock } from "@/ui/kit/code-block";
import { SettingsSection } from "@/ui/kit/settings-section";
import { type GuideId, guideFor } from "@/ui/onboarding/platforms";
import { GUIDE_TABS, GuideTabs, SdkGuide } from "@/ui/onboarding/sdk-guides";
import { orNotFound, param, requireViewer, services } from "../../../../../_lib/server";

export const metadata: Metadata = { title: "SDK setup" };

/** Copy-paste setup per platform, with the project's DSN filled in; the project's platform is the default tab. */
export default async function SetupPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, slug } = await params;
  const sp = await searchParams;
  const asked = param(sp.platform);
  const created = param(sp.created) === "1";
  const base = `/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings`;
  const viewer = await requireViewer(`${base}/setup`);
  const s = await services();
  const project = await orNotFound(s.projects.get(viewer, org, slug));
  const guide: GuideId = GUIDE_TABS.some((t) => t.id === asked) ? (asked as GuideId) : guideFor(project.platform);
  return (
    <div>
      <SettingsSection
        id="setup"
        title="SDK setup"
        description="Errata speaks the Sentry protocol: use the official, unmodified SDK and give it this project's DSN. Events show up in Issues within seconds."
      >
        {created ? (
          <p role="status" className="mb-4 rounded-md border border-border bg-subtle px-3 py-2 text-[12.5px]">
            ✓ Project <span className="font-medium">{project.name}</span> created with a first key. Set up the SDK below; errors then show
            up in{" "}
            <Link
              href={`/${encodeURIComponent(org)}/issues?project=${encodeURIComponent(project.slug)}`}
              className="underline underline-offset-2"
            >
              Issues
            </Link>
            .
          </p>
        ) : null}
        {project.dsn ? (
          <>
            <div data-testid="project-dsn">
              <CodeBlock label="DSN" code={project.dsn} copyLabel="Copy DSN" />
            </div>
            <div className="mt-5">
              <GuideTabs current={guide} href={(id) => `${base}/setup?platform=${id}`} />
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
          <p className="rounded-md border border-border px-4 py-3 text-fg-muted">
            This project has no active key, so there is no DSN to show.{" "}
            <Link href={`${base}/keys`} className="underline underline-offset-2 hover:text-fg">
              Create or enable one under Client keys
            </Link>
            .
          </p>
        )}
      </SettingsSection>
    </div>
  );
}
