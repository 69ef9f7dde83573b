import type { AuditEntry } from "@/server/identity/audit-log";
import { TimeAgo } from "../kit/time-ago";

/** What each action means, in words (unknown ones show their code). */
const ACTIONS: Record<string, string> = {
  "sso.signin": "signed in through the identity provider",
  "sso.signin.refused": "sign-in refused",
  "sso.saml.enable": "set up SAML",
  "sso.saml.update": "changed SAML",
  "sso.saml.remove": "removed SAML",
  "sso.oidc.enable": "set up OpenID Connect",
  "sso.oidc.update": "changed OpenID Connect",
  "sso.oidc.remove": "removed OpenID Connect",
  "sso.group_mapping.save": "mapped a group",
  "sso.group_mapping.remove": "removed a group mapping",
  "scim.token.create": "made the SCIM token",
  "scim.token.rotate": "replaced the SCIM token",
  "scim.token.revoke": "revoked the SCIM token",
  "scim.user.create": "provisioned",
  "scim.user.link": "linked an existing member",
  "scim.user.reactivate": "reactivated",
  "scim.user.deprovision": "deprovisioned",
  "scim.user.delete": "deleted",
  "scim.group.create": "pushed a group",
  "scim.group.update": "changed a group",
  "scim.group.delete": "deleted a group",
  "member.role": "changed a role",
  "member.remove": "removed a member",
  "member.leave": "left the organization",
};

function details(d: Record<string, unknown> | null): string {
  if (!d) return "";
  return Object.entries(d)
    .filter(([, v]) => v !== undefined && v !== null && v !== false && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`)
    .join(" · ");
}

export function AuditLogTable({ entries, now }: { entries: AuditEntry[]; now: number }) {
  if (entries.length === 0)
    return (
      <p className="text-[13px] text-fg-muted" data-testid="audit-empty">
        Nothing recorded yet. Sign-ins through the identity provider, SCIM provisioning and changes to single sign-on, roles and members
        appear here.
      </p>
    );
  return (
    <div className="relative overflow-x-auto rounded-md border border-border">
      <table className="w-full min-w-[640px] border-collapse text-[13px]" data-testid="audit-log">
        <caption className="sr-only">Audit log</caption>
        <thead>
          <tr className="h-8 border-b border-border bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
            <th scope="col" className="w-[110px] px-3 font-medium">
              When
            </th>
            <th scope="col" className="px-3 font-medium">
              Who
            </th>
            <th scope="col" className="px-3 font-medium">
              What
            </th>
            <th scope="col" className="px-3 font-medium">
              Address
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} className="border-b border-border align-top last:border-b-0" data-testid="audit-row" data-action={e.action}>
              <td className="px-3 py-1.5 whitespace-nowrap text-fg-muted">
                <TimeAgo ms={e.at} now={now} />
              </td>
              <td className="px-3 py-1.5 whitespace-nowrap">{e.actor}</td>
              <td className="px-3 py-1.5">
                <span>{ACTIONS[e.action] ?? e.action}</span> <span className="font-mono text-[12px] break-all">{e.target}</span>
                {e.details ? <div className="text-[12px] text-fg-muted">{details(e.details)}</div> : null}
              </td>
              <td className="px-3 py-1.5 font-mono text-[12px] text-fg-muted">{e.address ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
