import type { Metadata } from "next";
import { countOf } from "@/ui/format";
import { SettingsForm } from "@/ui/settings-form";
import { Field, ReadOnlyNote, SettingsSection } from "@/ui/settings-section";
import { orNotFound, requireViewer, services } from "../../../../../_lib/server";
import { saveOwnershipAction } from "./actions";

export const metadata: Metadata = { title: "Ownership rules" };

const EXAMPLE = "path:src/checkout/** #payments\nurl:*/admin/* ops@example.com\ntags.region:eu-* #eu-oncall";

/** Ownership rules in Sentry's syntax, fallthrough and auto-assignment. */
export default async function OwnershipPage({ params }: { params: Promise<{ org: string; slug: string }> }) {
  const { org, slug } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings/ownership`);
  const s = await services();
  const project = await orNotFound(s.projects.get(viewer, org, slug));
  const v = await orNotFound(s.ownership.get(viewer, org, slug));
  const o = v.settings;
  const rules = o.schema?.rules.length ?? 0;
  return (
    <div>
      {v.canManage ? null : <ReadOnlyNote role={v.role} />}
      <SettingsSection
        id="ownership"
        title="Ownership rules"
        description={
          <>
            Who owns an error, one rule a line: <code>type:pattern owner…</code>. Types: <code>path:</code> (frame file paths, the default),{" "}
            <code>module:</code>, <code>url:</code> (request URL), <code>tags.&lt;key&gt;:</code> and <code>codeowners:</code> (CODEOWNERS
            patterns). Patterns are globs (<code>*</code> matches anything, <code>?</code> one character). Owners are a member&apos;s email
            or <code>#team</code>. When several rules match, the <strong>last</strong> one decides the owner; the others are shown as
            suggestions. Lines starting with <code>#</code> are comments.
          </>
        }
      >
        <SettingsForm action={saveOwnershipAction} hidden={{ org, project: project.slug }} canManage={v.canManage} testId="ownership-form">
          <Field
            id="raw"
            label="Rules"
            hint={
              <>
                {countOf(rules, "rule")} saved.
                {v.teams.length > 0 ? ` Teams: ${v.teams.map((t) => `#${t}`).join(", ")}.` : " The organization has no teams yet."}
              </>
            }
          >
            <textarea
              id="raw"
              name="raw"
              rows={10}
              defaultValue={o.raw ?? ""}
              placeholder={EXAMPLE}
              className="input h-auto py-1.5 font-mono text-[12px]"
              spellCheck={false}
              aria-describedby="raw-help"
            />
            <p id="raw-help" className="mt-1 text-[12px] text-fg-dim">
              Every line is checked on save; one bad line or unknown owner and nothing is saved.
            </p>
          </Field>
          <Field id="autoAssignment" label="Auto-assignment" hint="What happens when a new issue arrives.">
            <select id="autoAssignment" name="autoAssignment" defaultValue={o.autoAssignment} className="input">
              <option value="Auto Assign to Issue Owner">Assign to the issue owner</option>
              <option value="Auto Assign to Suspect Commits">Assign to the suspect commit&apos;s author (else the owner)</option>
              <option value="Turn off Auto-Assignment">Off: only suggest owners</option>
            </select>
          </Field>
          <label className="flex items-start gap-2">
            <input type="checkbox" name="fallthrough" defaultChecked={o.fallthrough} className="mt-[3px]" />
            <span>
              <span className="font-medium">Fall through to everyone</span>
              <span className="block text-[12.5px] text-fg-muted">
                When no rule matches, alerts sent to &quot;issue owners&quot; go to all members of the project; off, they go to no one.
              </span>
            </span>
          </label>
        </SettingsForm>
      </SettingsSection>
    </div>
  );
}
