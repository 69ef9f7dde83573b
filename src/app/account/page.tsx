import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { SettingsForm } from "@/ui/kit/settings-form";
import { DangerZone, Field, SettingsSection } from "@/ui/kit/settings-section";
import { TimeAgo } from "@/ui/kit/time-ago";
import { NewTokenForm, RevokeTokenButton } from "@/ui/members/token-forms";
import { TokenList } from "@/ui/members/token-list";
import { requireViewer, services } from "../_lib/server";
import {
  changePasswordAction,
  createPersonalTokenAction,
  renameAction,
  revokeAllPersonalTokensAction,
  revokePersonalTokenAction,
  signOutEverywhereAction,
  weeklySummaryAction,
} from "./actions";

export const metadata: Metadata = { title: "Account" };

/** The signed-in user's own settings: name, password, sessions. */
export default async function AccountPage() {
  const viewer = await requireViewer("/account");
  const s = await services();
  const [account, orgs, tokens, ssoLinks, scopes, resetNotice, weekly] = await Promise.all([
    s.account.get(viewer, await headers()),
    s.orgs.listForViewer(viewer),
    s.tokens.listPersonal(viewer),
    s.sso.accountLinks(viewer),
    s.tokens.personalScopes(viewer),
    s.tokens.resetNotice(viewer),
    s.weeklySummary.enabled(viewer),
  ]);
  const now = Date.now();
  const home = orgs[0] ? `/${orgs[0].slug}/issues` : "/";
  return (
    <main className="mx-auto max-w-[760px] px-4 py-4">
      <nav aria-label="Breadcrumb" className="mb-3 text-[12.5px] text-fg-muted">
        <Link href={home} className="hover:text-fg">
          ← Back
        </Link>
      </nav>
      <h1 className="mb-4 text-[18px] font-semibold">Account</h1>
      <SettingsSection
        id="profile"
        title="Profile"
        description={`Signed in as ${account.email}. Your name is shown on assignments and comments.`}
      >
        <SettingsForm action={renameAction} hidden={{}} canManage fieldLabels={{ "": "Name" }}>
          <Field id="account-name" label="Name">
            <input
              id="account-name"
              name="name"
              defaultValue={account.name}
              required
              maxLength={100}
              className="input w-[280px] max-w-full"
            />
          </Field>
        </SettingsForm>
      </SettingsSection>
      <SettingsSection
        id="weekly-summary"
        title="Weekly summary"
        description="Every Monday, one email per organization about your teams' projects: new issues, regressions, the busiest issues and crash-free sessions per release."
      >
        {s.weeklySummary.mailConfigured() ? null : (
          <p className="mb-2 text-[12.5px] text-fg-muted" data-testid="weekly-summary-no-mail">
            Mail is not set up on this Errata (no <code>SMTP_HOST</code>), so no summary is sent until whoever runs it configures outgoing
            mail; your choice here is kept for then.
          </p>
        )}
        <SettingsForm action={weeklySummaryAction} hidden={{}} canManage testId="weekly-summary-form">
          <label className="flex items-center gap-2">
            <input type="checkbox" name="weeklySummary" defaultChecked={weekly} /> Send me the weekly summary
          </label>
        </SettingsForm>
      </SettingsSection>
      {ssoLinks.length > 0 ? (
        <SettingsSection
          id="sso-links"
          title="Single sign-on"
          description="Link this account to an organization's identity provider to sign in through it (needed when the organization requires SSO)."
        >
          <ul className="flex flex-col gap-2 text-[13px]" data-testid="sso-links">
            {ssoLinks.map((l) => (
              <li key={l.slug} className="flex items-center gap-3">
                <span className="min-w-[140px] font-medium">{l.name}</span>
                {l.linked ? (
                  <span className="font-medium">✓ Linked</span>
                ) : (
                  // A plain link: the provider's pages need a full navigation, not a client-side one.
                  <a className="btn btn-sm" href={`/api/sso/${encodeURIComponent(l.slug)}/start?next=/account`}>
                    Link with {l.name} SSO
                  </a>
                )}
              </li>
            ))}
          </ul>
        </SettingsSection>
      ) : null}
      <SettingsSection
        id="password"
        title="Password"
        description="Changing it signs out every other session (other browsers and devices); this one stays signed in."
      >
        <SettingsForm
          action={changePasswordAction}
          hidden={{}}
          canManage
          submitLabel="Change password"
          fieldLabels={{ current: "Current password", next: "New password" }}
        >
          <input type="text" name="username" autoComplete="username" defaultValue={account.email} hidden readOnly />
          <Field id="current-password" label="Current password">
            <input
              id="current-password"
              name="current"
              type="password"
              autoComplete="current-password"
              required
              className="input w-[280px] max-w-full"
            />
          </Field>
          <Field id="new-password" label="New password" hint="At least 12 characters.">
            <input
              id="new-password"
              name="next"
              type="password"
              autoComplete="new-password"
              required
              minLength={12}
              className="input w-[280px] max-w-full"
            />
          </Field>
        </SettingsForm>
      </SettingsSection>
      <SettingsSection id="sessions" title="Active sessions" description="Browsers signed in to your account.">
        <ul className="flex flex-col divide-y divide-border rounded-md border border-border" aria-label="Sessions">
          {account.sessions.map((x) => (
            <li key={x.id} className="px-3 py-2 text-[13px]" data-testid="session-row">
              <div className="truncate">
                {x.userAgent ?? "Unknown browser"}
                {x.current ? <span className="badge ml-2">this session</span> : null}
              </div>
              <div className="text-[12px] text-fg-muted">
                {x.ipAddress ? `${x.ipAddress} · ` : ""}signed in <TimeAgo ms={x.createdAt} now={now} /> · active{" "}
                <TimeAgo ms={x.lastActiveAt} now={now} />
              </div>
            </li>
          ))}
        </ul>
      </SettingsSection>
      <SettingsSection
        id="personal-tokens"
        title="Personal API tokens"
        description="For scripts and the REST API. Only the scopes your role allows are offered, and a token never does more than your current role in each organization allows."
      >
        {resetNotice ? (
          <div role="status" className="mb-3 rounded-md border border-warning px-3 py-2 text-[13px]" data-testid="reset-token-notice">
            Your password was reset <TimeAgo ms={resetNotice.resetAt} now={now} />. API tokens are not affected by a password reset:{" "}
            {resetNotice.olderTokens === 1
              ? "1 token made before it still works"
              : `${resetNotice.olderTokens} tokens made before it still work`}
            . If the reset was because someone else may have known your password,{" "}
            <a href="#revoke-all-tokens" className="underline">
              revoke all tokens
            </a>
            .
          </div>
        ) : null}
        <TokenList
          tokens={tokens}
          revoke={(t) => <RevokeTokenButton action={revokePersonalTokenAction} hidden={{ tokenId: String(t.id) }} name={t.name} />}
        />
        <div className="mt-4">
          <NewTokenForm
            action={createPersonalTokenAction}
            hidden={{}}
            scopes={scopes}
            defaults={["org:read", "project:read", "event:read"].filter((d) => scopes.some((s) => s === d))}
            idPrefix="personal-token"
          />
        </div>
      </SettingsSection>
      {tokens.length > 0 ? (
        <DangerZone
          id="revoke-all-tokens"
          title="Revoke all tokens"
          description="Revokes every personal API token of yours at once (organization tokens stay): scripts and CI jobs using them stop working."
        >
          <SettingsForm
            action={revokeAllPersonalTokensAction}
            hidden={{}}
            canManage
            submitLabel="Revoke all tokens"
            fieldLabels={{ confirm: "Confirm" }}
            testId="revoke-all-tokens"
          >
            <label className="flex items-center gap-2 text-[13px]">
              <input type="checkbox" name="confirm" required /> Revoke all {tokens.length} of my personal tokens
            </label>
          </SettingsForm>
        </DangerZone>
      ) : null}
      <DangerZone
        title="Sign out everywhere"
        description="Ends every session, this one included, and closes their live streams. API tokens are not affected."
      >
        <form action={signOutEverywhereAction}>
          <button type="submit" className="btn text-danger">
            Sign out everywhere
          </button>
        </form>
      </DangerZone>
    </main>
  );
}
