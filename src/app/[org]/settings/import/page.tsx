import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SettingsSection } from "@/ui/kit/settings-section";
import { ImportFromSentry } from "@/ui/orgs/import-from-sentry";
import { errorCode, requireViewer, services } from "../../../_lib/server";
import { importRunAction, startImportAction } from "./actions";

export const metadata: Metadata = { title: "Import from Sentry" };

/** Import an organization from Sentry's REST API into this one (owners only; the service decides). */
export default async function ImportSettingsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/import`);
  let recent: Awaited<ReturnType<Awaited<ReturnType<typeof services>>["importRuns"]["recent"]>>;
  try {
    recent = await (await services()).importRuns.recent(viewer, org);
  } catch (err) {
    if (errorCode(err) !== "forbidden") throw err;
    // Admins see why the section is not theirs; members and viewers have no organization settings.
    if (!(await (await services()).orgs.can(viewer, org))["member.invite"]) notFound();
    return (
      <SettingsSection id="import" title="Import from Sentry">
        <p className="text-[13px] text-fg-muted" data-testid="import-owners-only">
          Only owners of this organization can import into it.
        </p>
      </SettingsSection>
    );
  }
  return (
    <SettingsSection
      id="import"
      title="Import from Sentry"
      description={
        <>
          Moves teams, projects with their settings, DSN keys (unchanged: SDKs only need the new host), members as invitations, alert rules,
          releases and, if you ask, recent issues from sentry.io, Sentry self-hosted, GlitchTip or another Errata. Safe to run again: it
          updates, never duplicates. The token is used for this run only and never stored. docs/migrate.md explains each step.
        </>
      }
    >
      <ImportFromSentry org={org} start={startImportAction} poll={importRunAction} last={recent[0] ?? null} />
    </SettingsSection>
  );
}
