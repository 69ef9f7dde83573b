/**
 * A full garbage collection, when the process runs with `--expose-gc` (`npm start`, the `errata`
 * bin and the Docker image do); otherwise nothing. The digest thread calls it once when a burst
 * ends: its young generation is large for speed (start-worker-thread.ts), and V8 would otherwise
 * keep the burst's heap for as long as the server stays quiet.
 */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
}
