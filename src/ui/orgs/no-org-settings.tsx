import Link from "next/link";

/** What a member or viewer finds here: organization settings are not theirs; their own settings are. */
export function NoOrgSettings({ role }: { role: string }) {
  return (
    <div className="max-w-prose text-[13px]" data-testid="no-org-settings">
      <p>
        Organization settings (members, teams, tokens, single sign-on, imports) are managed by its admins and owners; your role here is{" "}
        <span className="font-medium">{role}</span>.
      </p>
      <p className="mt-2 text-fg-muted">
        Your own settings — name, password, sessions, email notifications — are on{" "}
        <Link href="/account" className="underline underline-offset-2 hover:text-fg">
          your account page
        </Link>
        .
      </p>
    </div>
  );
}
