/**
 * What an issue alert says when the event is a Next.js case the rules recognised (src/core/nextjs):
 *   - the browser's mirror of a server error (#441 with a digest) names the server error, its
 *     culprit and the digest, and links the digest page that lists both sides;
 *   - a server error whose browser mirror already arrived says the visitor saw it;
 *   - deploy skew is one message per release: how many users/events hit stale chunks and in how long,
 *     with what prevents it;
 *   - a decoded React error is named by its code and real message, never the minified text.
 * Pure: the pipeline gathers the facts, every channel renders them through message.ts.
 */

export interface DigestSideRef {
  issueId: number;
  shortId: string;
  title: string;
  culprit: string;
  /** the issue's page */
  path: string;
}

export interface NextjsAlert {
  digest?: {
    value: string;
    key: string;
    side: "server" | "client";
    /** the digest page (both sides) */
    path: string;
    /** the server error this browser event mirrors (client side only) */
    server?: DigestSideRef;
    /** the browser issue that mirrors this server error (server side only) */
    browser?: DigestSideRef;
  };
  skew?: {
    release: string | null;
    /** distinct users of the skew issue (0 when the SDK sends no user) */
    users: number;
    events: number;
    /** from the first to this skew event of the release */
    minutes: number;
  };
  react?: { code: number; message: string };
}

/**
 * How long a digest alert waits for its other side (ALERTS_NEXTJS_PAIR_MS) and a deploy-skew
 * alert for its burst (ALERTS_NEXTJS_BURST_MS) when nothing says.
 */
export const DEFAULT_NEXTJS_HOLD = { pairMs: 30_000, burstMs: 30_000 } as const;

/** Advice shown with every deploy-skew message. */
export const SKEW_ADVICE =
  "Browser tabs still running the previous build asked for chunks this deploy no longer serves: not a bug in the code that threw. " +
  "Set deploymentId in next.config (Next.js then reloads a stale tab on its next navigation) or enable skew protection at your host " +
  "(Vercel: Skew Protection) so old clients keep reaching their own build.";

export function digestPath(orgSlug: string, key: string): string {
  return `/${encodeURIComponent(orgSlug)}/digest/${encodeURIComponent(key)}`;
}

export function skewSummary(s: NonNullable<NextjsAlert["skew"]>): string {
  const n = s.users > 0 ? s.users : s.events;
  const what = s.users > 0 ? (n === 1 ? "user" : "users") : n === 1 ? "event" : "events";
  const minutes = Math.max(1, s.minutes);
  return `${n} ${what} hit stale chunks in ${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** The headline's subject for a Next.js alert ("" when the issue title says it best). */
export function nextjsSubject(n: NextjsAlert | undefined, projectName: string): string | null {
  if (!n) return null;
  if (n.skew) return `Deploy skew after release ${n.skew.release ?? "(none)"} in ${projectName}: ${skewSummary(n.skew)}`;
  const d = n.digest;
  if (d?.side === "client" && d.server) return `server error reached the browser (digest ${d.value}): ${d.server.title}`;
  if (d?.side === "client") return `a server error reached the browser (digest ${d.value}); its server side is not in Errata yet`;
  if (n.react) return `#${n.react.code} ${firstLine(n.react.message)}`;
  return null;
}

/** Lines under the headline: the other side, the culprit, the digest, the advice. */
export function nextjsDetails(n: NextjsAlert | undefined): string[] {
  if (!n) return [];
  const out: string[] = [];
  const d = n.digest;
  if (d?.side === "client" && d.server) {
    out.push(`Server error ${d.server.shortId}: ${d.server.title}`);
    if (d.server.culprit) out.push(`Culprit: ${d.server.culprit}`);
    out.push(`Digest ${d.value}: the browser only got Next.js's redacted message (React #441)`);
  } else if (d?.side === "client") {
    out.push(`Digest ${d.value}: the server side needs onRequestError and the digest hook (see the README)`);
  } else if (d?.side === "server" && d.browser) {
    out.push(`Seen in the browser as ${d.browser.shortId} (digest ${d.value})`);
  }
  if (n.react && !n.skew && d?.side !== "client") out.push(`React error #${n.react.code}: ${firstLine(n.react.message)}`);
  return out;
}

/** Facts a Next.js alert adds to the issue's. */
export function nextjsFacts(n: NextjsAlert | undefined): Array<[string, string]> {
  if (!n) return [];
  const out: Array<[string, string]> = [];
  const d = n.digest;
  if (d) out.push(["Digest", d.value]);
  if (d?.server) out.push(["Server issue", d.server.shortId]);
  if (d?.browser) out.push(["Browser issue", d.browser.shortId]);
  if (n.skew) out.push(["What to do", SKEW_ADVICE]);
  if (n.react) out.push(["React error", `#${n.react.code}`]);
  return out;
}

/** Where the message links: the digest page once both sides are known, else the issue's page. */
export function nextjsPath(n: NextjsAlert | undefined): string | null {
  const d = n?.digest;
  if (d && (d.server || d.browser)) return d.path;
  return null;
}

function firstLine(s: string): string {
  const line = (s.split(/\r?\n/, 1)[0] ?? "").trim();
  const chars = Array.from(line);
  return chars.length <= 180 ? line : `${chars.slice(0, 179).join("")}…`;
}
