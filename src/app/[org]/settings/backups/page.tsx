import type { Metadata } from "next";
import { SettingsSection } from "@/ui/kit/settings-section";
import { BackupStatusView } from "@/ui/orgs/backup-status";
import { orNotFound, requireViewer, services } from "../../../_lib/server";

export const metadata: Metadata = { title: "Backups" };

/** The installation's backups (its operators only): schedule, last success and size, last error. */
export default async function BackupsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/backups`);
  const s = await services();
  await orNotFound(s.orgs.get(viewer, org));
  const status = await orNotFound(s.backups.status(viewer));
  return (
    <SettingsSection
      id="backups"
      title="Backups"
      description="For the whole installation, not only this organization. errata backup writes one archive (database, ingest queue, replays and other blobs) while Errata runs; errata restore puts it back into an empty data directory or database."
    >
      <BackupStatusView status={status} now={Date.now()} />
    </SettingsSection>
  );
}
