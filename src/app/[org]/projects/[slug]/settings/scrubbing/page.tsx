import type { Metadata } from "next";
import { SettingsForm } from "@/ui/kit/settings-form";
import { Field, ReadOnlyNote, SettingsSection } from "@/ui/kit/settings-section";
import { orNotFound, requireViewer, services } from "../../../../../_lib/server";
import { updateSettingsAction } from "../actions";

export const metadata: Metadata = { title: "Data scrubbing" };

/** Server-side PII scrubbing: on/off, IP addresses, extra sensitive keys and keys never scrubbed. */
export default async function ScrubbingPage({ params }: { params: Promise<{ org: string; slug: string }> }) {
  const { org, slug } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings/scrubbing`);
  const v = await orNotFound((await services()).projects.settings(viewer, org, slug));
  const sc = v.scrubbing;
  return (
    <div>
      {v.canManage ? null : <ReadOnlyNote role={v.role} />}
      <SettingsSection
        id="scrubbing"
        title="Data scrubbing"
        description={
          <>
            Applied on the server before an event is grouped or stored, so secrets never reach the database, issue titles or search. By
            default values under sensitive keys (password, secret, token, auth, cookie, session, card numbers…) become{" "}
            <code>[Filtered]</code>, and credit-card numbers, private keys, bearer tokens and passwords in URLs are removed from every
            string. Each event&apos;s processing notes list what was scrubbed (paths, never values). Changes apply to events received from
            now on.
          </>
        }
      >
        <SettingsForm
          action={updateSettingsAction}
          hidden={{ org, project: v.project.slug, section: "scrubbing" }}
          canManage={v.canManage}
          fieldLabels={{ "scrubbing.extraKeys": "Additional sensitive keys", "scrubbing.safeKeys": "Safe keys" }}
          testId="scrubbing-form"
        >
          <label className="flex items-start gap-2">
            <input type="checkbox" name="enabled" defaultChecked={sc.enabled} className="mt-[3px]" />
            <span>
              <span className="font-medium">Scrub sensitive data</span>
              <span className="block text-[12.5px] text-fg-muted">Turning this off stores events exactly as the SDK sent them.</span>
            </span>
          </label>
          <label className="flex items-start gap-2">
            <input type="checkbox" name="scrubIp" defaultChecked={sc.scrubIp} className="mt-[3px]" />
            <span>
              <span className="font-medium">Remove IP addresses</span>
              <span className="block text-[12.5px] text-fg-muted">
                The end user&apos;s IP address is dropped from the event (user and request).
              </span>
            </span>
          </label>
          <Field id="extraKeys" label="Additional sensitive keys" hint="One per line; any key containing one of these is scrubbed.">
            <textarea
              id="extraKeys"
              name="extraKeys"
              rows={4}
              defaultValue={sc.extraKeys.join("\n")}
              placeholder={"ssn\niban"}
              className="input h-auto py-1.5 font-mono text-[12px]"
              spellCheck={false}
            />
          </Field>
          <Field id="safeKeys" label="Safe keys" hint="One per line; exact key names never scrubbed, even if they look sensitive.">
            <textarea
              id="safeKeys"
              name="safeKeys"
              rows={3}
              defaultValue={sc.safeKeys.join("\n")}
              placeholder="session_count"
              className="input h-auto py-1.5 font-mono text-[12px]"
              spellCheck={false}
            />
          </Field>
        </SettingsForm>
      </SettingsSection>
    </div>
  );
}
