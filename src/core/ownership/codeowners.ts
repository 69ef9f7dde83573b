/**
 * CODEOWNERS files (issue 30) in GitHub's and GitLab's syntax, turned into ownership rules:
 * - GitHub: `pattern owner…`, `#` comments, `\#` and `\ ` escapes; a pattern without owners
 *   leaves the files it matches without an owner; the last matching line wins.
 * - GitLab: the same lines, plus sections `[Name]`, `^[Optional]`, `[Name][2]` whose owners written
 *   after the header are the default owners of the section's lines that name none.
 * Owners are `@user`, `@org/team` (GitLab `@group/subgroup`) or an email. Emails map to members by
 * themselves; handles map through the organization's external names (`@acme/payments` → #payments).
 * A handle without a mapping is listed as unmatched, never dropped silently: its rule keeps the
 * owners it has, and a rule left with none is listed too.
 */
import type { OwnerRef, OwnershipRule } from "./rules";

/** A CODEOWNERS file larger than this is refused whole (GitHub's own limit is 3 MB; ours is for the settings page). */
export const MAX_CODEOWNERS_CHARS = 200_000;
export const MAX_CODEOWNERS_LINES = 5_000;

export interface CodeownersEntry {
  line: number;
  pattern: string;
  /** as written: `@acme/payments`, `@pat`, `pat@example.com` */
  owners: string[];
  section: string | null;
}

export interface CodeownersParse {
  entries: CodeownersEntry[];
  errors: Array<{ line: number; message: string }>;
}

const SECTION = /^\^?\[([^\]]+)\](?:\[(\d+)\])?\s*(.*)$/;
const HANDLE = /^@@?[A-Za-z0-9][A-Za-z0-9_.\-/]*$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parseCodeowners(raw: string): CodeownersParse {
  const entries: CodeownersEntry[] = [];
  const errors: CodeownersParse["errors"] = [];
  if (raw.length > MAX_CODEOWNERS_CHARS) {
    return {
      entries,
      errors: [{ line: 0, message: `the CODEOWNERS file is longer than ${MAX_CODEOWNERS_CHARS.toLocaleString("en")} characters` }],
    };
  }
  const lines = raw.split(/\r?\n/);
  let section: { name: string; owners: string[] } | null = null;
  for (const [i, rawLine] of lines.entries()) {
    const text = stripComment(rawLine).trim();
    if (text === "") continue;
    const header = SECTION.exec(text);
    // `[abc].js` is a pattern with a character class, not a section: a section header is the whole token.
    if (header && !/^\[[^\]]+\][^\s[]/.test(text)) {
      const owners = splitTokens(header[3] ?? "");
      const bad = owners.find((o) => !isOwner(o));
      if (bad) errors.push({ line: i + 1, message: `"${clip(bad)}" is not an owner: write @user, @org/team or an email` });
      section = { name: (header[1] as string).trim(), owners };
      continue;
    }
    const [pattern, ...owners] = splitTokens(text) as [string, ...string[]];
    const bad = owners.find((o) => !isOwner(o));
    if (bad) {
      errors.push({ line: i + 1, message: `"${clip(bad)}" is not an owner: write @user, @org/team or an email` });
      continue;
    }
    if (pattern.length > 500) {
      errors.push({ line: i + 1, message: "the pattern is longer than 500 characters" });
      continue;
    }
    entries.push({ line: i + 1, pattern, owners: owners.length > 0 ? owners : (section?.owners ?? []), section: section?.name ?? null });
  }
  if (entries.length > MAX_CODEOWNERS_LINES)
    errors.push({ line: 0, message: `at most ${MAX_CODEOWNERS_LINES.toLocaleString("en")} rules` });
  return { entries, errors };
}

/** A line without its comment: `#` starts one unless escaped (`\#`). */
function stripComment(line: string): string {
  for (let i = 0; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (line[i] === "#") return line.slice(0, i);
  }
  return line;
}

/** Whitespace-separated tokens, `\ ` kept inside one, escapes removed. */
function splitTokens(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\" && i + 1 < text.length) {
      cur += text[++i];
    } else if (/\s/.test(ch)) {
      if (cur) out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

const isOwner = (token: string) => (HANDLE.test(token) || EMAIL.test(token)) && token.length <= 320;
const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);

/** The handles a file names (emails map by themselves), in first-seen order. */
export function externalNamesOf(entries: CodeownersEntry[]): string[] {
  const seen = new Set<string>();
  for (const e of entries) for (const o of e.owners) if (o.startsWith("@")) seen.add(o.toLowerCase());
  return [...seen];
}

/** What a handle stands for here: a team (slug) or a member (email). */
export type ExternalTarget = { type: "team"; slug: string } | { type: "user"; email: string };

export interface CodeownersRules {
  rules: OwnershipRule[];
  /** handles with no mapping, and emails of no member, each once */
  unmatched: string[];
}

/**
 * The entries as `codeowners:` ownership rules. `mapping` is keyed by lower-cased handle;
 * `isMember` says whether an email is a member's (others are unmatched).
 */
export function codeownersRules(
  entries: CodeownersEntry[],
  mapping: Map<string, ExternalTarget>,
  isMember: (email: string) => boolean,
): CodeownersRules {
  const unmatched = new Set<string>();
  const rules: OwnershipRule[] = [];
  for (const e of entries) {
    const owners: OwnerRef[] = [];
    for (const o of e.owners) {
      const ref = ownerOf(o, mapping, isMember);
      if (!ref) {
        unmatched.add(o);
        continue;
      }
      if (!owners.some((x) => x.type === ref.type && x.identifier === ref.identifier)) owners.push(ref);
    }
    // A line whose owners are all unknown still ends an earlier line's ownership of its files
    // (as an ownerless line does on GitHub): it is kept, owning nothing.
    rules.push({
      line: e.line,
      text: `codeowners:${e.pattern} ${e.owners.join(" ")}`.trim(),
      matcher: { type: "codeowners", pattern: e.pattern },
      owners,
    });
  }
  return { rules, unmatched: [...unmatched] };
}

function ownerOf(token: string, mapping: Map<string, ExternalTarget>, isMember: (email: string) => boolean): OwnerRef | undefined {
  if (!token.startsWith("@")) return isMember(token.toLowerCase()) ? { type: "user", identifier: token.toLowerCase() } : undefined;
  const m = mapping.get(token.toLowerCase());
  if (!m) return undefined;
  return m.type === "team" ? { type: "team", identifier: m.slug } : { type: "user", identifier: m.email.toLowerCase() };
}
