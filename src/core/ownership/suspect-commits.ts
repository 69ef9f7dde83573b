/**
 * Suspect commits (issue 30): the commits of the event's release whose changed files are the
 * files of the event's in-app frames. A frame path and a commit path match when one ends with the
 * other at a directory boundary (`/srv/app/src/checkout/pay.js` and `src/checkout/pay.js`); the
 * score is the number of path components they share from the end, so a commit naming the
 * frame's directory as well as its file outranks one that only shares the file name.
 */
import type { NormalizedEvent } from "../event";
import { pathVariants } from "./match";

export interface CommitWithFiles {
  id: string;
  repository: string;
  message: string | null;
  authorName: string | null;
  authorEmail: string | null;
  timestamp: number | null;
  /** 0 = newest in the release */
  position: number;
  files: string[];
}

export interface SuspectCommit {
  commit: CommitWithFiles;
  score: number;
  /** the changed file that matched */
  file: string;
}

/** At most this many frames are compared (the top of the stack is where the fault usually is). */
const MAX_FRAMES = 50;
export const MAX_SUSPECTS = 5;

/**
 * The in-app frames' paths, innermost first. An SDK that marks no frame at all (in_app absent
 * everywhere) leaves every frame in; one that marks some leaves only those.
 */
export function inAppPaths(event: Pick<NormalizedEvent, "exception">): string[] {
  const frames = (event.exception?.values ?? []).flatMap((v) => [...(v?.stacktrace?.frames ?? [])].reverse());
  const marked = frames.some((f) => typeof f?.in_app === "boolean");
  const out: string[] = [];
  for (const f of frames) {
    if (marked && f?.in_app !== true) continue;
    const p = typeof f?.abs_path === "string" && f.abs_path ? f.abs_path : f?.filename;
    const name = typeof f?.filename === "string" ? f.filename : undefined;
    for (const cand of [p, name]) {
      if (typeof cand !== "string" || !cand) continue;
      const bare = pathVariants(cand).at(-1) as string;
      if (!out.includes(bare)) out.push(bare);
    }
    if (out.length >= MAX_FRAMES) break;
  }
  return out;
}

const parts = (p: string) =>
  p
    .toLowerCase()
    .split("/")
    .filter((s) => s !== "" && s !== ".");

/** Shared trailing components when one path ends with the other; 0 otherwise. */
export function pathMatchScore(framePath: string, commitPath: string): number {
  const a = parts(framePath);
  const b = parts(pathVariants(commitPath).at(-1) as string);
  const n = Math.min(a.length, b.length);
  if (n === 0) return 0;
  let shared = 0;
  while (shared < n && a[a.length - 1 - shared] === b[b.length - 1 - shared]) shared++;
  return shared === n ? shared : 0;
}

export function suspectCommits(paths: string[], commits: CommitWithFiles[], limit = MAX_SUSPECTS): SuspectCommit[] {
  const found: SuspectCommit[] = [];
  for (const commit of commits) {
    let best: { score: number; file: string } | undefined;
    for (const file of commit.files) {
      for (const p of paths) {
        const score = pathMatchScore(p, file);
        if (score > (best?.score ?? 0)) best = { score, file };
      }
    }
    if (best) found.push({ commit, ...best });
  }
  return found.sort((x, y) => y.score - x.score || x.commit.position - y.commit.position).slice(0, limit);
}
