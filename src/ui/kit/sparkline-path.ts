/**
 * Sparkline geometry, computed on the server: counts → an SVG path (area) in a fixed viewBox, so
 * the row renders an inline SVG with no client work and no layout shift.
 */

export const SPARK_W = 72;
export const SPARK_H = 20;

/** Bars as one path: each bucket a rectangle from the baseline; empty buckets draw nothing. */
export function sparkBars(counts: number[], width = SPARK_W, height = SPARK_H): string {
  const n = counts.length;
  if (n === 0) return "";
  const max = Math.max(...counts);
  if (max <= 0) return "";
  const step = width / n;
  const bar = Math.max(1, step - (n > 16 ? 1 : 1.5));
  let d = "";
  counts.forEach((c, i) => {
    if (c <= 0) return;
    // At least 1.5 px so a single event is visible next to a spike.
    const h = Math.max(1.5, (c / max) * (height - 1));
    const x = (i * step).toFixed(2);
    const y = (height - h).toFixed(2);
    d += `M${x} ${y}h${bar.toFixed(2)}V${height}h-${bar.toFixed(2)}Z`;
  });
  return d;
}
