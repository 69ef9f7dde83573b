"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const SECTIONS = [
  { path: "/members", label: "Members" },
  { path: "/teams", label: "Teams" },
  { path: "/tokens", label: "Tokens" },
  { path: "/sso", label: "Single sign-on" },
  { path: "/import", label: "Import from Sentry" },
  { path: "/audit-log", label: "Audit log" },
] as const;

/** The organization settings' sections: a column at wide widths, wrapping rows on narrow ones (a scrolling row hid the current one). */
export function OrgSettingsNav({ base }: { base: string }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Organization settings" className="-mx-1 flex flex-wrap gap-1 px-1 pb-1 md:mx-0 md:flex-col md:flex-nowrap md:px-0">
      {SECTIONS.map((s) => {
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
