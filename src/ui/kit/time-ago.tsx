import { absoluteTime, relativeTime } from "./format";

/** Relative time with the absolute (UTC) time on hover. Rendered on the server at request time. */
export function TimeAgo({ ms, now, className }: { ms: number | null | undefined; now?: number; className?: string }) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return <span className={className}>–</span>;
  const abs = absoluteTime(ms);
  return (
    <time dateTime={new Date(ms).toISOString()} title={abs} className={className}>
      {relativeTime(ms, now)}
    </time>
  );
}
