"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** The organization settings' sections and the permission each needs (the page checks it again). */
export const ORG_SETTINGS_SECTIONS = [
  { path: "/members", label: "Members", needs: "member.invite" },
  { path: "/teams", label: "Teams", needs: "team.read" },
  { path: "/tokens", label: "Tokens", needs: "orgtoken.manage" },
  { path: "/sso", label: "Single sign-on", needs: "sso.read" },
  { path: "/import", label: "Import from Sentry", needs: "org.import" },
] as const;

/**
 * The sections this viewer may use (`visible`, by path): a column at wide widths, wrapping rows on
 * narrow ones (a scrolling row hid the current one). A section the role may not use is not offered.
 */
export function OrgSettingsNav({ base, visible }: { base: string; visible: readonly string[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Organization settings" className="-mx-1 flex flex-wrap gap-1 px-1 pb-1 md:mx-0 md:flex-col md:flex-nowrap md:px-0">
      {ORG_SETTINGS_SECTIONS.filter((s) => visible.includes(s.path)).map((s) => {
        const href = `${base}${s.path}`;
        const current = pathname === href;
        return (
          <Link
            key={s.path}
            href={href}
            aria-current={current ? "page" : undefined}
            className={`shrink-0 rounded-md px-2.5 py-1.5 text-[13px] whitespace-nowrap hover:bg-hover ${current ? "bg-muted font-semibold text-fg" : "text-fg-muted"}`}
          >
            {s.label}
          </Link>
        );
      })}
    </nav>
  );
}

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
