import type { Metadata } from "next";
import { DangerZone, SettingsSection } from "@/ui/kit/settings-section";
import { DeleteTeamForm, NewTeamForm, TeamAddForm, TeamRemoveButton } from "@/ui/members/team-forms";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import { createTeamAction, deleteTeamAction, teamChangeAction } from "./actions";

export const metadata: Metadata = { title: "Teams" };

/** Teams with their members and projects; creating one; deleting one last. */
export default async function TeamsPage({ params }: { params: Promise<{ org: string }> }) {
  const { org } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/settings/teams`);
  const page = await orNotFound((await services()).teams.page(viewer, org));
  return (
    <div>
      <SettingsSection
        id="teams"
        title="Teams"
        description="Teams own projects: members and viewers see the projects of their teams, admins and owners see all. Until the first team exists everyone sees every project; the first team starts with everyone and everything, and new projects and new members join it."
      >
        {page.teams.length === 0 ? (
          <p className="text-fg-muted">No teams yet: every member sees every project.</p>
        ) : (
          <ul className="flex flex-col gap-3" aria-label="Teams">
            {page.teams.map((t, i) => (
              <li key={t.id} className="rounded-md border border-border px-4 py-3" data-testid="team" data-team={t.slug}>
                <div className="flex flex-wrap items-baseline gap-2">
                  <h3 className="font-semibold">{t.name}</h3>
                  <span className="font-mono text-[12px] text-fg-dim">{t.slug}</span>
                  {i === 0 ? <span className="badge">default</span> : null}
                </div>
                <div className="mt-2 grid gap-4 md:grid-cols-2">
                  <div>
                    <h4 className="text-[11px] font-medium tracking-wide text-fg-muted uppercase">Members</h4>
                    <ul className="mt-1 flex flex-col">
                      {t.members.map((m) => (
                        <li key={m.userId} className="flex items-center justify-between gap-2 text-[13px]" data-testid="team-member">
                          <span className="truncate">
                            {m.name} <span className="text-fg-muted">{m.email}</span>
                          </span>
                          {m.managed ? (
                            <span className="badge shrink-0" title="This membership comes from an identity-provider group; change it there">
                              managed by your identity provider
                            </span>
                          ) : (
                            <TeamRemoveButton
                              action={teamChangeAction}
                              org={org}
                              team={t.slug}
                              kind="member"
                              value={m.userId}
                              label={m.email}
                            />
                          )}
                        </li>
                      ))}
                      {t.members.length === 0 ? <li className="text-[13px] text-fg-muted">Nobody yet.</li> : null}
                    </ul>
                    <div className="mt-2">
                      <TeamAddForm
                        action={teamChangeAction}
                        org={org}
                        team={t.slug}
                        kind="member"
                        options={page.members
                          .filter((m) => !t.members.some((x) => x.userId === m.userId))
                          .map((m) => ({ value: m.userId, label: m.email }))}
                      />
                    </div>
                  </div>
                  <div>
                    <h4 className="text-[11px] font-medium tracking-wide text-fg-muted uppercase">Projects</h4>
                    <ul className="mt-1 flex flex-col">
                      {t.projects.map((p) => (
                        <li key={p.id} className="flex items-center justify-between gap-2 text-[13px]" data-testid="team-project">
                          <span className="truncate">{p.name}</span>
                          <TeamRemoveButton
                            action={teamChangeAction}
                            org={org}
                            team={t.slug}
                            kind="project"
                            value={p.slug}
                            label={p.slug}
                          />
                        </li>
                      ))}
                      {t.projects.length === 0 ? <li className="text-[13px] text-fg-muted">No projects yet.</li> : null}
                    </ul>
                    <div className="mt-2">
                      <TeamAddForm
                        action={teamChangeAction}
                        org={org}
                        team={t.slug}
                        kind="project"
                        options={page.projects
                          .filter((p) => !t.projects.some((x) => x.id === p.id))
                          .map((p) => ({ value: p.slug, label: p.name }))}
                      />
                    </div>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </SettingsSection>
      <SettingsSection id="new-team" title="New team">
        <NewTeamForm action={createTeamAction} org={org} />
      </SettingsSection>
      {page.teams.length > 0 ? (
        <DangerZone
          title="Delete a team"
          description="Its members lose sight of its projects unless another team of theirs has them. The projects stay."
        >
          <DeleteTeamForm action={deleteTeamAction} org={org} teams={page.teams.map((t) => t.slug)} />
        </DangerZone>
      ) : null}
    </div>
  );
}
