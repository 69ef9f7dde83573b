/** `m:ss` of a replay offset (ms): the player's clock, the list's durations. */
export function formatOffset(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}
