/**
 * Deploy skew: a browser tab still running the previous build asks for a chunk the new deploy no
 * longer serves. These are not bugs in the code that threw; they are "stale clients after deploy
 * R", so they are classified, tagged and grouped per release instead of one issue per chunk URL.
 */
import type { NormalizedEvent } from "../event";

export type EventClass = "deploy-skew";

/** Message shapes of a missing chunk, per bundler and browser (comment = who produces it). */
const SKEW_MESSAGES: readonly RegExp[] = [
  /\bLoading chunk [\w./-]+ failed\b/i, // webpack JS chunks
  /\bLoading CSS chunk [\w./-]+ failed\b/i, // webpack / mini-css-extract-plugin
  /\bFailed to load chunk\b/, // Turbopack (Next.js 15+)
  /\bFailed to fetch dynamically imported module\b/i, // Chromium, dynamic import()
  /\berror loading dynamically imported module\b/i, // Firefox
  /\bImporting a module script failed\b/i, // Safari
  /\bUnable to preload CSS for\b/i, // Vite's preload helper
];

/** Is this event a missing-chunk error caused by a deploy? Looks at every exception and the message. */
export function classifyDeploySkew(event: NormalizedEvent): EventClass | null {
  for (const exc of event.exception?.values ?? []) {
    if (exc.type === "ChunkLoadError") return "deploy-skew";
    if (typeof exc.value === "string" && matchesSkew(exc.value)) return "deploy-skew";
  }
  const message = event.logentry?.formatted ?? event.logentry?.message;
  if (typeof message === "string" && matchesSkew(message)) return "deploy-skew";
  return null;
}

function matchesSkew(text: string): boolean {
  // Only the start matters: a long message that merely quotes one of these is not a chunk failure.
  const head = text.slice(0, 500);
  return SKEW_MESSAGES.some((re) => re.test(head));
}
