"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { INSTALLATION_SECTIONS, ORG_SETTINGS_SECTIONS } from "./settings-sections";

/**
 * The sections this viewer may use (`visible`, by path): a column at wide widths, wrapping rows on
 * narrow ones (a scrolling row hid the current one). A section the role may not use is not offered.
 */
export function OrgSettingsNav({ base, visible }: { base: string; visible: readonly string[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Organization settings" className="-mx-1 flex flex-wrap gap-1 px-1 pb-1 md:mx-0 md:flex-col md:flex-nowrap md:px-0">
      {[...ORG_SETTINGS_SECTIONS, ...INSTALLATION_SECTIONS]
        .filter((s) => visible.includes(s.path))
        .map((s) => {
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
