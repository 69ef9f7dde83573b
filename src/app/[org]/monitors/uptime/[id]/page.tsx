import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { TimeAgo } from "@/ui/kit/time-ago";
import { formatDuration } from "@/ui/monitors/parts";
import { RefreshWhileMounted } from "@/ui/monitors/uptime-form";
import { every, Fact, pct, ResponseTimeChart, timeout, UptimeResults, UptimeStateBadge, uptimePath } from "@/ui/monitors/uptime-parts";
import { orNotFound, requireViewer, services } from "../../../../_lib/server";

export const metadata: Metadata = { title: "Uptime check" };

/** One uptime check: state, open issue, availability, response times and the latest results. */
export default async function UptimePage({ params }: { params: Promise<{ org: string; id: string }> }) {
  const { org, id: raw } = await params;
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
  if (!id) notFound();
  const viewer = await requireViewer(uptimePath(org, id));
  const m = await orNotFound((await services()).uptime.get(viewer, org, id));
  const c = m.config;
  const headers = Object.keys(c.headers);
  const now = Date.now();
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <nav className="mb-2 text-[12px] text-fg-muted">
        <Link href={`/${encodeURIComponent(org)}/monitors`} className="hover:underline">
          Monitors
        </Link>{" "}
        /{" "}
        <Link href={`/${encodeURIComponent(org)}/monitors#uptime`} className="hover:underline">
          Uptime checks
        </Link>
      </nav>
      <header className="mb-1 flex flex-wrap items-center gap-3">
        <h1 className="text-[18px] font-semibold">{m.name}</h1>
        <UptimeStateBadge state={m.state} paused={m.paused} />
        {m.issueId !== null ? (
          <Link href={`/${encodeURIComponent(org)}/issues/${m.issueId}`} className="text-danger hover:underline">
            Open issue
          </Link>
        ) : null}
      </header>
      <p className="mb-4 truncate font-mono text-[12.5px]" title={c.url}>
        <span className="text-fg-dim">{c.method}</span> {c.url}
      </p>
      {m.state === "pending" && !m.paused ? <RefreshWhileMounted /> : null}

      <section className="mb-3 grid grid-cols-2 gap-x-6 sm:grid-cols-4" aria-label="Availability" data-testid="uptime-availability">
        <Fact label="Availability 24 h" big>
          {pct(m.availability.day)}
        </Fact>
        <Fact label="7 days" big>
          {pct(m.availability.week)}
        </Fact>
        <Fact label="30 days" big>
          {pct(m.availability.month)}
        </Fact>
        <Fact label="Last check">
          {m.last ? (
            <>
              <span className={m.last.up ? "" : "text-danger"}>{m.last.status ?? m.last.error}</span> ·{" "}
              {m.last.latencyMs !== null ? formatDuration(m.last.latencyMs) : "–"} · <TimeAgo ms={m.last.checkedAt} now={now} />
            </>
          ) : (
            <span className="text-fg-muted">waiting for the first check</span>
          )}
        </Fact>
      </section>

      <section className="mb-4 grid grid-cols-2 gap-x-6 text-[13px] sm:grid-cols-4 lg:grid-cols-7" aria-label="Configuration">
        <Fact label="Project" mono>
          {m.projectSlug}
        </Fact>
        <Fact label="Every">{every(c.intervalSeconds)}</Fact>
        <Fact label="Timeout">{timeout(c.timeoutMs)}</Fact>
        <Fact label="Expected status" mono>
          {c.statusMin}–{c.statusMax}
        </Fact>
        <Fact label="Body contains" mono>
          {c.keyword ?? "–"}
        </Fact>
        <Fact label="Down / up after">
          {c.failureThreshold} / {c.recoveryThreshold} in a row
        </Fact>
        {/* Header values may hold credentials: names only. */}
        <Fact label="Headers" mono>
          {headers.length ? headers.join(", ") : "–"}
        </Fact>
      </section>

      <section className="mb-4" aria-labelledby="latency">
        <h2 id="latency" className="mb-1 text-[14px] font-semibold">
          Response times <span className="font-normal text-fg-muted text-[12px]">last 24 h</span>
        </h2>
        <ResponseTimeChart slots={m.latency} />
      </section>

      <section aria-labelledby="results">
        <h2 id="results" className="mb-1 text-[14px] font-semibold">
          Recent checks
        </h2>
        <UptimeResults results={m.recent} />
      </section>
    </main>
  );
}
