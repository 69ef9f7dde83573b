import type { Metadata } from "next";
import { ActionButton } from "@/ui/alerts/forms";
import { countOf } from "@/ui/kit/format";
import { SettingsForm } from "@/ui/kit/settings-form";
import { Field, ReadOnlyNote, SettingsSection } from "@/ui/kit/settings-section";
import { CodeownersMappingRow } from "@/ui/ownership/codeowners-mapping";
import { orNotFound, requireViewer, services } from "../../../../../_lib/server";
import { deleteCodeownersAction, mapNameAction, saveCodeownersAction, saveOwnershipAction, saveTrackersAction } from "./actions";

export const metadata: Metadata = { title: "Ownership rules" };

const CODEOWNERS_EXAMPLE = "# GitHub or GitLab syntax\n/src/checkout/ @acme/payments\n*.css @pat\n[Docs]\ndocs/ writer@example.com";
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
  const co = await orNotFound(s.codeowners.page(viewer, org, slug));
  const pasted = co.files.find((f) => f.codeMappingId === null);
  const hidden = { org, project: project.slug };
  const trackers = await orNotFound(s.trackers.settings(viewer, org, slug));
  const t = trackers.settings;
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
        <SettingsForm
          action={saveOwnershipAction}
          hidden={{ org, project: project.slug }}
          canManage={v.canManage}
          testId="ownership-form"
          errorsDescribe="raw"
        >
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
                Sentry&apos;s project-wide fallthrough, kept for its API. Alert rules that email issue owners choose their own fallthrough
                (all members, recently active members or no one), as in Sentry; this switch gives it to rules imported from a Sentry older
                than that (on: all members, off: no one).
              </span>
            </span>
          </label>
        </SettingsForm>
      </SettingsSection>
      <SettingsSection
        id="codeowners"
        title="CODEOWNERS"
        description={
          <>
            Paste your repository&apos;s CODEOWNERS file (GitHub or GitLab syntax, sections included) or post it through Sentry&apos;s{" "}
            <code>
              /api/0/projects/{"{org}"}/{"{project}"}/codeowners/
            </code>
            . Its lines are matched against frame paths like <code>codeowners:</code> rules; the rules above take precedence. Handles such
            as <code>@acme/payments</code> need a team or member below; emails match members by themselves.
          </>
        }
      >
        <SettingsForm
          action={saveCodeownersAction}
          hidden={hidden}
          canManage={co.canManage}
          testId="codeowners-form"
          errorsDescribe="codeowners"
        >
          <Field
            id="codeowners"
            label="CODEOWNERS"
            hint={pasted ? `Saved ${pasted.dateUpdated.slice(0, 10)}.` : "None saved yet. At most 200,000 characters."}
          >
            <textarea
              id="codeowners"
              name="codeowners"
              rows={8}
              defaultValue={pasted?.raw ?? ""}
              placeholder={CODEOWNERS_EXAMPLE}
              className="input h-auto py-1.5 font-mono text-[12px]"
              spellCheck={false}
            />
          </Field>
        </SettingsForm>
        {co.files.some((f) => f.codeMappingId !== null) ? (
          <ul className="mt-3 flex flex-col gap-1" aria-label="Files posted through the API">
            {co.files
              .filter((f) => f.codeMappingId !== null)
              .map((f) => (
                <li key={f.id} className="flex flex-wrap items-center gap-2">
                  <span>
                    Code mapping <code>{f.codeMappingId}</code>: {f.raw.split("\n").length} lines, updated {f.dateUpdated.slice(0, 10)}
                  </span>
                  {co.canManage ? (
                    <ActionButton
                      action={deleteCodeownersAction}
                      values={{ ...hidden, id: f.id }}
                      label="Remove"
                      ariaLabel={`Remove the CODEOWNERS file of code mapping ${f.codeMappingId}`}
                      danger
                    />
                  ) : null}
                </li>
              ))}
          </ul>
        ) : null}
      </SettingsSection>
      <SettingsSection
        id="codeowners-names"
        title="Names in CODEOWNERS"
        description="Every handle the CODEOWNERS files name and the team or member it stands for here (for the whole organization). An unmatched name owns nothing until it is mapped."
      >
        {co.handles.length === 0 && co.unknownEmails.length === 0 ? (
          <p className="text-fg-muted">No CODEOWNERS names yet.</p>
        ) : (
          <>
            <p className="mb-2 text-[12.5px] text-fg-muted" data-testid="codeowners-summary">
              {co.handles.filter((h) => h.target === null).length + co.unknownEmails.length} unmatched of{" "}
              {co.handles.length + co.unknownEmails.length}.
            </p>
            <ul className="flex flex-col">
              {co.handles.map((h, i) => (
                <CodeownersMappingRow
                  key={h.name}
                  action={mapNameAction}
                  hidden={hidden}
                  row={h}
                  teams={co.teams}
                  members={co.members.map((m) => m.email)}
                  canManage={co.canManage}
                  index={i}
                />
              ))}
            </ul>
            {co.unknownEmails.length > 0 ? (
              <p className="mt-2 text-[12.5px]" data-testid="codeowners-unknown-emails">
                <span className="font-semibold">No member has these emails:</span> {co.unknownEmails.join(", ")} — invite them or change the
                file.
              </p>
            ) : null}
          </>
        )}
      </SettingsSection>
      <SettingsSection
        id="trackers"
        title="Issue trackers"
        description="Where this project's work is tracked. The issue page then offers “Create issue” links prefilled with the title, the Errata link and the top in-app frames; Errata only builds the links and never calls the tracker."
      >
        <SettingsForm
          action={saveTrackersAction}
          hidden={hidden}
          canManage={trackers.canManage}
          testId="trackers-form"
          fieldLabels={TRACKER_LABELS}
        >
          <Field id="github" label="GitHub repository" hint="e.g. https://github.com/acme/shop">
            <input
              id="github"
              name="github"
              type="url"
              className="input max-w-[460px]"
              defaultValue={t.github ?? ""}
              placeholder="https://github.com/owner/repo"
            />
          </Field>
          <Field id="gitlab" label="GitLab project" hint="e.g. https://gitlab.com/acme/shop, self-hosted too">
            <input
              id="gitlab"
              name="gitlab"
              type="url"
              className="input max-w-[460px]"
              defaultValue={t.gitlab ?? ""}
              placeholder="https://gitlab.com/group/project"
            />
          </Field>
          <Field id="jiraUrl" label="Jira site or project" hint="e.g. https://acme.atlassian.net/browse/PAY">
            <input
              id="jiraUrl"
              name="jiraUrl"
              type="url"
              className="input max-w-[460px]"
              defaultValue={t.jiraUrl ?? ""}
              placeholder="https://acme.atlassian.net/browse/PAY"
            />
          </Field>
          <Field id="jiraProjectId" label="Jira project id" hint="The numeric id Jira's create screen needs (the pid in its URLs).">
            <input
              id="jiraProjectId"
              name="jiraProjectId"
              inputMode="numeric"
              className="input w-[160px] tabular-nums"
              defaultValue={t.jiraProjectId ?? ""}
              placeholder="10001"
            />
          </Field>
        </SettingsForm>
      </SettingsSection>
    </div>
  );
}

const TRACKER_LABELS: Record<string, string> = {
  github: "GitHub repository",
  gitlab: "GitLab project",
  jiraUrl: "Jira site or project",
  jiraProjectId: "Jira project id",
};
