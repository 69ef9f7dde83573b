import type { Metadata } from "next";
import Link from "next/link";
import { SettingsSection } from "@/ui/kit/settings-section";
import { OutcomesChart, outcomeDays } from "@/ui/orgs/outcomes-chart";
import { orNotFound, param, requireViewer, services } from "../../../../../_lib/server";

export const metadata: Metadata = { title: "Usage" };

const DAYS = 30;
const DAY_MS = 86_400_000;

/** Data categories grouped as a user thinks of them (Sentry's category names inside). */
const GROUPS = [
  { id: "errors", label: "Errors", categories: ["error", "default", "security"] },
  { id: "sessions", label: "Sessions", categories: ["session"] },
  { id: "attachments", label: "Attachments", categories: ["attachment"] },
  { id: "feedback", label: "Feedback", categories: ["feedback", "user_report_v2"] },
  { id: "other", label: "Other", categories: null },
] as const;
type GroupId = (typeof GROUPS)[number]["id"];
const KNOWN = new Set<string>(GROUPS.flatMap((g) => g.categories ?? []));

const OUTCOME_LABEL: Record<string, string> = {
  accepted: "Accepted",
  filtered: "Filtered",
  rate_limited: "Rate limited",
  invalid: "Invalid",
  client_discard: "Dropped by the SDK",
};

/** What became of what the project's SDKs sent, per day for 30 days, and why anything was turned away. */
export default async function UsagePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, slug } = await params;
  const asked = param((await searchParams).category);
  const group = GROUPS.find((g) => g.id === asked) ?? GROUPS[0];
  const base = `/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings/usage`;
  const viewer = await requireViewer(base);
  const s = await services();
  const settings = await orNotFound(s.projects.settings(viewer, org, slug));
  const description = (
    <>
      Every item an SDK sends ends in exactly one outcome: <b className="font-medium text-fg">accepted</b> (stored),{" "}
      <b className="font-medium text-fg">filtered</b> (a disabled key, a duplicate, a type Errata does not store),{" "}
      <b className="font-medium text-fg">rate limited</b> or <b className="font-medium text-fg">invalid</b> (malformed, too large). Per UTC
      day, last {DAYS} days.
    </>
  );
  if (!settings.canManage) {
    return (
      <SettingsSection id="usage" title="Usage" description={description}>
        <p className="rounded-md border border-border bg-subtle px-3 py-2 text-[12.5px] text-fg-muted">
          Only admins and owners can see a project&apos;s usage counters.
        </p>
      </SettingsSection>
    );
  }
  const now = Date.now();
  const from = Math.floor(now / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
  const rows = await orNotFound(s.outcomes.list(viewer, org, slug, { from, to: now + 3_600_000 }));
  const inGroup = (category: string) =>
    group.categories ? (group.categories as readonly string[]).includes(category) : !KNOWN.has(category);
  const mine = rows.filter((r) => inGroup(r.category));
  const days = outcomeDays(mine, now, DAYS);
  const reasons = new Map<string, { outcome: string; reason: string; category: string; quantity: number }>();
  for (const r of mine) {
    if (r.outcome === "accepted") continue;
    const k = `${r.outcome}\u0000${r.reason}\u0000${r.category}`;
    const prev = reasons.get(k);
    if (prev) prev.quantity += r.quantity;
    else reasons.set(k, { outcome: r.outcome, reason: r.reason, category: r.category, quantity: r.quantity });
  }
  const reasonRows = [...reasons.values()].sort((a, b) => b.quantity - a.quantity).slice(0, 30);
  return (
    <div>
      <SettingsSection id="usage" title="Usage" description={description}>
        <nav aria-label="Data category" className="-mx-1 mb-4 flex gap-1 overflow-x-auto px-1 pb-1">
          {GROUPS.map((g) => (
            <Link
              key={g.id}
              href={g.id === "errors" ? base : `${base}?category=${g.id as GroupId}`}
              scroll={false}
              aria-current={g.id === group.id ? "page" : undefined}
              className={`btn btn-sm shrink-0 ${g.id === group.id ? "border-fg font-semibold" : "btn-ghost text-fg-muted"}`}
            >
              {g.label}
            </Link>
          ))}
        </nav>
        <OutcomesChart days={days} caption={`${group.label}, last ${DAYS} days`} />
        {mine.length === 0 ? (
          <p className="mt-3 text-[12.5px] text-fg-muted">
            Nothing received in this category in the last {DAYS} days. Counters appear as soon as an SDK sends something with one of this
            project&apos;s DSNs.
          </p>
        ) : null}
      </SettingsSection>
      <SettingsSection
        id="reasons"
        title="Why items were turned away"
        description="Everything not accepted in this category, by outcome and reason."
      >
        {reasonRows.length === 0 ? (
          <p className="text-fg-muted">Nothing was turned away.</p>
        ) : (
          <div className="overflow-x-auto rounded-md border border-border">
            <table className="w-full border-collapse text-[12.5px]">
              <thead className="bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
                <tr>
                  <th className="px-3 py-1.5 font-medium">Outcome</th>
                  <th className="px-3 py-1.5 font-medium">Reason</th>
                  <th className="px-3 py-1.5 font-medium">Category</th>
                  <th className="px-3 py-1.5 text-right font-medium">Items</th>
                </tr>
              </thead>
              <tbody>
                {reasonRows.map((r) => (
                  <tr key={`${r.outcome}-${r.reason}-${r.category}`} className="border-t border-border">
                    <td className="px-3 py-1.5">{OUTCOME_LABEL[r.outcome] ?? r.outcome}</td>
                    <td className="px-3 py-1.5 font-mono text-[12px]">{r.reason || "—"}</td>
                    <td className="px-3 py-1.5 font-mono text-[12px] text-fg-muted">{r.category}</td>
                    <td className="tabular px-3 py-1.5 text-right">{r.quantity.toLocaleString("en-US")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </SettingsSection>
    </div>
  );
}
