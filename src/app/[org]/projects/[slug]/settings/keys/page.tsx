import type { Metadata } from "next";
import Link from "next/link";
import { CodeBlock } from "@/ui/kit/code-block";
import { DangerZone, ReadOnlyNote, SettingsSection } from "@/ui/kit/settings-section";
import { TimeAgo } from "@/ui/kit/time-ago";
import { KeyDangerZoneForm, KeyEnableButton, KeyLabelForm, NewKeyForm } from "@/ui/orgs/key-forms";
import { orNotFound, requireViewer, services } from "../../../../../_lib/server";
import { createKeyAction, dangerKeyAction, updateKeyAction } from "../actions";

export const metadata: Metadata = { title: "Client keys (DSN)" };

/** DSN keys: each with its DSN to copy, rename and re-enable; create another; disable or rotate at the bottom. */
export default async function KeysPage({ params }: { params: Promise<{ org: string; slug: string }> }) {
  const { org, slug } = await params;
  const base = `/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings`;
  const viewer = await requireViewer(`${base}/keys`);
  const s = await services();
  const [settings, keys] = await Promise.all([
    orNotFound(s.projects.settings(viewer, org, slug)),
    orNotFound(s.keys.list(viewer, org, slug)),
  ]);
  const canManage = settings.canManage;
  const target = { org, project: settings.project.slug };
  const active = keys.filter((k) => k.active);
  const now = Date.now();
  return (
    <div>
      {canManage ? null : <ReadOnlyNote role={settings.role} />}
      <SettingsSection
        id="keys"
        title="Client keys (DSN)"
        description={
          <>
            An SDK sends events with a DSN. It is not a secret (browser apps ship it), but a leaked one can flood the project: give each app
            its own key so you can disable one without touching the others. Setup snippets are under{" "}
            <Link href={`${base}/setup`} className="underline decoration-border-strong underline-offset-2 hover:text-fg">
              SDK setup
            </Link>
            .
          </>
        }
      >
        <ul className="flex flex-col divide-y divide-border rounded-md border border-border" aria-label="Keys">
          {keys.map((k) => (
            <li
              key={k.id}
              className="px-4 py-3"
              data-testid="key-row"
              data-key-label={k.label}
              data-key-active={k.active ? "true" : "false"}
            >
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="font-semibold">{k.label}</span>
                <span className={`badge ${k.active ? "" : "border-dashed"}`}>{k.active ? "active" : "disabled"}</span>
                <span className="text-[12px] text-fg-dim">
                  created <TimeAgo ms={k.createdAt} now={now} />
                </span>
                {canManage && !k.active ? (
                  <span className="ml-auto">
                    <KeyEnableButton action={updateKeyAction} target={target} keyId={k.id} label={k.label} />
                  </span>
                ) : null}
              </div>
              <div className={`mt-2 ${k.active ? "" : "opacity-60"}`}>
                <CodeBlock code={k.dsn} copyLabel={`Copy DSN of key ${k.label}`} />
              </div>
              {canManage ? (
                <div className="mt-2">
                  <KeyLabelForm action={updateKeyAction} target={target} keyId={k.id} label={k.label} />
                </div>
              ) : null}
            </li>
          ))}
          {keys.length === 0 ? <li className="px-4 py-3 text-fg-muted">This project has no keys.</li> : null}
        </ul>
      </SettingsSection>

      {canManage ? (
        <>
          <SettingsSection id="new-key" title="New key" description="The new DSN works at once.">
            <NewKeyForm action={createKeyAction} target={target} />
          </SettingsSection>
          <DangerZone
            title="Disable or rotate a key"
            description="Both take effect on the next request the SDK sends. Events refused this way are counted under Usage as filtered."
          >
            <KeyDangerZoneForm
              action={dangerKeyAction}
              target={target}
              keys={active.map((k) => ({ id: k.id, label: k.label, publicKey: k.publicKey }))}
            />
          </DangerZone>
        </>
      ) : null}
    </div>
  );
}
