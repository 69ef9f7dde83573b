import Link from "next/link";
import type { OrgSummary } from "@/server/types";
import { Wordmark } from "../kit/wordmark";
import { IntentLink } from "./intent-link";
import { PopoverEscape } from "./popover-escape";
import { SignOutButton } from "./sign-out-button";
import { ThemeToggle } from "./theme-toggle";

const SECTIONS = [
  ["issues", "Issues"],
  ["replays", "Replays"],
  ["traces", "Traces"],
  ["releases", "Releases"],
  ["feedback", "Feedback"],
  ["monitors", "Monitors"],
  ["projects", "Projects"],
] as const;

const SETTINGS = [
  ["settings", "Settings"],
  ["settings/members", "Members"],
  ["settings/teams", "Teams"],
] as const;

/** The one slim bar of the signed-in pages: wordmark, organization (switcher when several), sections, user. */
export function TopBar({
  orgs,
  current,
  email,
  settings: manages,
}: {
  orgs: OrgSummary[];
  current: OrgSummary;
  email: string;
  /** whether the organization's settings are the viewer's to open (the permission table says) */
  settings: boolean;
}) {
  const others = orgs.filter((o) => o.slug !== current.slug);
  return (
    <header className="sticky top-0 z-20 border-b border-border bg-bg">
      <PopoverEscape />
      {/* 360 px wide phones: the name of the product gives way to the mark, a long organization name is cut, so Sign out stays in view. */}
      <div className="flex h-11 min-w-0 items-center gap-2 px-3 sm:gap-3 sm:px-4">
        <IntentLink
          href={`/${current.slug}/issues`}
          aria-label="Errata home"
          className="inline-flex min-h-7 min-w-7 shrink-0 items-center justify-center max-sm:[&_span>span]:hidden"
        >
          <Wordmark size="sm" />
        </IntentLink>
        <span className="text-fg-dim" aria-hidden="true">
          /
        </span>
        {others.length === 0 && current.role !== "owner" ? (
          <span className="min-w-0 truncate font-medium">{current.name}</span>
        ) : (
          <details className="relative min-w-0" data-popover="">
            <summary
              className="btn btn-sm btn-ghost max-w-full list-none font-medium [&::-webkit-details-marker]:hidden"
              aria-label={`Organization: ${current.name}. Switch organization`}
            >
              <span className="min-w-0 truncate">{current.name}</span>
              <svg width="10" height="10" viewBox="0 0 10 10" aria-hidden="true">
                <path d="M2 4l3 3 3-3" fill="none" stroke="currentColor" strokeWidth="1.4" />
              </svg>
            </summary>
            <ul className="absolute left-0 top-8 z-30 min-w-[200px] max-w-[calc(100vw-2rem)] rounded-md border border-border bg-bg py-1 shadow-lg">
              {orgs.map((o) => (
                <li key={o.slug}>
                  <Link
                    href={`/${o.slug}/issues`}
                    className="flex items-center justify-between gap-4 px-3 py-1.5 hover:bg-hover"
                    aria-current={o.slug === current.slug ? "true" : undefined}
                  >
                    <span className={o.slug === current.slug ? "font-medium" : ""}>{o.name}</span>
                    <span className="font-mono text-[11px] text-fg-dim">{o.slug}</span>
                  </Link>
                </li>
              ))}
              {orgs.some((o) => o.role === "owner") ? (
                <li className="mt-1 border-t border-border pt-1">
                  <Link href="/orgs/new" className="block px-3 py-1.5 text-fg-muted hover:bg-hover hover:text-fg">
                    New organization…
                  </Link>
                </li>
              ) : null}
            </ul>
          </details>
        )}
        <nav aria-label="Sections" className="-my-1 ml-3 hidden min-w-0 items-center gap-0.5 py-1 sm:flex">
          {SECTIONS.map(([path, label]) => (
            <IntentLink key={path} href={`/${current.slug}/${path}`} className="btn btn-sm btn-ghost shrink-0">
              {label}
            </IntentLink>
          ))}
          {manages ? (
            <IntentLink href={`/${current.slug}/settings/members`} className="btn btn-sm btn-ghost shrink-0">
              Settings
            </IntentLink>
          ) : null}
        </nav>
        {/* Phones: the sections did not fit and scrolled out of sight (Feedback, Projects); a menu names them all. */}
        <details className="relative shrink-0 sm:hidden" data-popover="">
          <summary className="btn btn-sm btn-ghost list-none [&::-webkit-details-marker]:hidden" aria-label="Menu: sections">
            Menu
            <svg width="10" height="10" viewBox="0 0 10 10" aria-hidden="true">
              <path d="M2 4l3 3 3-3" fill="none" stroke="currentColor" strokeWidth="1.4" />
            </svg>
          </summary>
          <nav
            aria-label="Sections menu"
            className="absolute right-0 top-8 z-30 min-w-[180px] max-w-[calc(100vw-2rem)] rounded-md border border-border bg-bg py-1 shadow-lg"
          >
            {SECTIONS.map(([path, label]) => (
              <Link key={path} href={`/${current.slug}/${path}`} className="block px-3 py-2.5 hover:bg-hover">
                {label}
              </Link>
            ))}
            {/* The header's Settings link is hidden on phones: the menu names the settings on-call needs. */}
            {manages ? (
              <div className="border-t border-border">
                {SETTINGS.map(([path, label]) => (
                  <Link key={path} href={`/${current.slug}/${path}`} className="block px-3 py-2.5 hover:bg-hover">
                    {label}
                  </Link>
                ))}
              </div>
            ) : null}
            <Link
              href="/account"
              className="block truncate border-t border-border px-3 py-2.5 text-[12px] text-fg-muted hover:bg-hover hover:text-fg"
            >
              {email}: account
            </Link>
          </nav>
        </details>
        <div className="ml-auto flex shrink-0 items-center gap-1">
          <IntentLink
            href="/account"
            className="mr-1 hidden max-w-[240px] truncate text-fg-muted hover:text-fg sm:inline"
            title={`${email}: account`}
          >
            {email}
          </IntentLink>
          <ThemeToggle />
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
