/** Level colours are the only saturated colours: a bar, a dot, never a fill. */

const LEVELS = ["fatal", "error", "warning", "info", "debug"] as const;
export type Level = (typeof LEVELS)[number];

export function normalizeLevel(v: unknown): Level {
  const s = typeof v === "string" ? v.toLowerCase() : "";
  if (s === "warn") return "warning";
  if (s === "critical") return "fatal";
  if (s === "log") return "info";
  return (LEVELS as readonly string[]).includes(s) ? (s as Level) : "error";
}

const BG: Record<Level, string> = {
  fatal: "bg-fatal",
  error: "bg-error",
  warning: "bg-warning",
  info: "bg-info",
  debug: "bg-debug",
};

export function LevelBar({ level, className = "" }: { level: unknown; className?: string }) {
  const l = normalizeLevel(level);
  return <span className={`block w-[3px] rounded-full ${BG[l]} ${className}`} title={`Level: ${l}`} aria-hidden="true" />;
}

export function LevelDot({ level }: { level: unknown }) {
  const l = normalizeLevel(level);
  return <span className={`inline-block size-2 shrink-0 rounded-full ${BG[l]}`} aria-hidden="true" />;
}

/** Dot and the level's name. */
export function LevelLabel({ level }: { level: unknown }) {
  const raw = typeof level === "string" && level ? level.toLowerCase() : normalizeLevel(level);
  return (
    <span className="inline-flex items-center gap-1.5">
      <LevelDot level={level} />
      <span>{raw}</span>
    </span>
  );
}
