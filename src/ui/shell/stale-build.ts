/** The errors a tab that outlived a deploy gets: a missing chunk, or a Server Action the new build does not have. */
export function isStaleBuildError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (name === "ChunkLoadError") return true;
  const text = typeof message === "string" ? message.slice(0, 300) : "";
  return /Loading (CSS )?chunk [\w./-]+ failed|Failed to load chunk|Failed to fetch dynamically imported module|Failed to find Server Action/i.test(
    text,
  );
}
