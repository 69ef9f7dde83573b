import { KvTable } from "./kv-table";
import type { ContextView } from "./model";

const TITLES: Record<string, string> = {
  os: "Operating system",
  runtime: "Runtime",
  browser: "Browser",
  device: "Device",
  trace: "Trace",
  app: "App",
  culture: "Culture",
  cloud_resource: "Cloud resource",
  response: "Response",
  react: "React",
  nextjs: "Next.js",
};

/** One small key/value table per context. */
export function ContextTables({ contexts }: { contexts: ContextView[] }) {
  if (contexts.length === 0) return <p className="text-fg-dim">No contexts.</p>;
  return (
    <div className="grid gap-3 md:grid-cols-2 xl:grid-cols-3">
      {contexts.map((c) => (
        <section key={c.name} className="rounded-md border border-border" aria-label={`Context: ${c.name}`}>
          <h3 className="flex items-baseline gap-2 border-b border-border bg-subtle px-3 py-1.5 text-[12.5px] font-semibold">
            {TITLES[c.name] ?? c.name}
            {TITLES[c.name] ? null : c.type && c.type !== c.name ? <span className="font-normal text-fg-dim">{c.type}</span> : null}
          </h3>
          <div className="px-3 py-1">
            <KvTable pairs={c.pairs} label={`${c.name} context`} />
          </div>
        </section>
      ))}
    </div>
  );
}
