/**
 * Ownership rules in Sentry's syntax (issue 30): one rule a line, `type:pattern owner…`, where the
 * type is `path` (the default when none is written), `module`, `url`, `tags.<key>` or
 * `codeowners`, and each owner is a member's email or `#team`. Blank lines and lines starting with
 * `#` are comments. Parsing collects every bad line with its number, so the settings page and the
 * API can name them all at once; a file with any bad line is refused whole.
 */

export type MatcherType = "path" | "module" | "url" | "codeowners" | `tags.${string}`;

export interface OwnerRef {
  type: "user" | "team";
  /** the email (lower-cased) or the team's slug */
  identifier: string;
}

export interface OwnershipRule {
  /** 1-based line number in the raw text */
  line: number;
  /** the line as written, trimmed: what the UI and the activity log quote */
  text: string;
  matcher: { type: MatcherType; pattern: string };
  owners: OwnerRef[];
}

export interface LineError {
  line: number;
  message: string;
}

export const MAX_RAW_CHARS = 100_000;
export const MAX_RULES = 1_000;
const MAX_PATTERN = 500;
const MAX_OWNERS = 50;
const TYPES = new Set(["path", "module", "url", "codeowners"]);
const TAG_KEY = /^tags\.[A-Za-z0-9_.:-]{1,200}$/;
const EMAIL = /^[^\s@#]+@[^\s@]+$/;
const TEAM = /^#[a-z0-9][a-z0-9_-]{0,63}$/i;

export function parseOwnershipRules(raw: string): { rules: OwnershipRule[]; errors: LineError[] } {
  const rules: OwnershipRule[] = [];
  const errors: LineError[] = [];
  if (raw.length > MAX_RAW_CHARS) {
    return { rules, errors: [{ line: 0, message: `the rules are longer than ${MAX_RAW_CHARS.toLocaleString("en")} characters` }] };
  }
  const lines = raw.split(/\r?\n/);
  for (const [i, rawLine] of lines.entries()) {
    const text = rawLine.trim();
    if (text === "" || text.startsWith("#")) continue;
    const parsed = parseLine(text, i + 1);
    if ("message" in parsed) errors.push(parsed);
    else rules.push(parsed);
  }
  if (rules.length > MAX_RULES) errors.push({ line: 0, message: `at most ${MAX_RULES} rules` });
  return { rules, errors };
}

function parseLine(text: string, line: number): OwnershipRule | LineError {
  const [matcherToken, ...ownerTokens] = text.split(/\s+/) as [string, ...string[]];
  const matcher = parseMatcher(matcherToken);
  if (typeof matcher === "string") return { line, message: matcher };
  if (ownerTokens.length === 0) return { line, message: `no owner after "${clip(matcherToken)}": add an email or #team` };
  if (ownerTokens.length > MAX_OWNERS) return { line, message: `at most ${MAX_OWNERS} owners per rule` };
  const owners: OwnerRef[] = [];
  for (const token of ownerTokens) {
    const owner = parseOwner(token);
    if (!owner) return { line, message: `"${clip(token)}" is not an owner: write a member's email or #team` };
    if (!owners.some((o) => o.type === owner.type && o.identifier === owner.identifier)) owners.push(owner);
  }
  return { line, text, matcher, owners };
}

/** `type:pattern` (or a bare pattern, a path); an error message when the line cannot be read. */
function parseMatcher(token: string): OwnershipRule["matcher"] | string {
  const colon = token.indexOf(":");
  let type: string = "path";
  let pattern = token;
  const prefix = colon > 0 ? token.slice(0, colon) : "";
  if (TYPES.has(prefix) || prefix.startsWith("tags.")) {
    type = prefix;
    pattern = token.slice(colon + 1);
    if (type.startsWith("tags.") && !TAG_KEY.test(type)) return `"${clip(type)}" is not a tag name`;
  } else if (/^[a-z][a-z0-9_]*$/i.test(prefix)) {
    return `unknown rule type "${clip(prefix)}": use path:, module:, url:, tags.<key>: or codeowners:`;
  }
  if (pattern === "") return `"${clip(token)}" has no pattern after the colon`;
  if (pattern.length > MAX_PATTERN) return `the pattern is longer than ${MAX_PATTERN} characters`;
  return { type: type as MatcherType, pattern };
}

function parseOwner(token: string): OwnerRef | undefined {
  if (TEAM.test(token)) return { type: "team", identifier: token.slice(1).toLowerCase() };
  if (EMAIL.test(token) && token.length <= 320) return { type: "user", identifier: token.toLowerCase() };
  return undefined;
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);

/** Sentry's API names for the auto-assignment modes. */
export const AUTO_ASSIGNMENT = {
  owner: "Auto Assign to Issue Owner",
  suspect: "Auto Assign to Suspect Commits",
  off: "Turn off Auto-Assignment",
} as const;
export type AutoAssignment = keyof typeof AUTO_ASSIGNMENT;

export function autoAssignmentFromLabel(label: string): AutoAssignment | undefined {
  return (Object.keys(AUTO_ASSIGNMENT) as AutoAssignment[]).find((k) => AUTO_ASSIGNMENT[k] === label);
}

/** What the organization has of the owners a rule names (from storage). */
export interface OwnerDirectory {
  members: Map<string, { id: string; email: string; name: string }>;
  teams: Map<string, { id: number; slug: string }>;
}

export function ownerIdentifiers(rules: OwnershipRule[]): { emails: string[]; teams: string[] } {
  const owners = rules.flatMap((r) => r.owners);
  return {
    emails: owners.filter((o) => o.type === "user").map((o) => o.identifier),
    teams: owners.filter((o) => o.type === "team").map((o) => o.identifier),
  };
}

/** One error per line naming an owner the organization does not have. */
export function unknownOwners(rules: OwnershipRule[], dir: OwnerDirectory): LineError[] {
  const errors: LineError[] = [];
  for (const r of rules) {
    const missing = r.owners.filter((o) => (o.type === "team" ? !dir.teams.has(o.identifier) : !dir.members.has(o.identifier)));
    if (missing.length === 0) continue;
    const names = missing.map((o) => (o.type === "team" ? `#${o.identifier}` : o.identifier)).join(", ");
    errors.push({ line: r.line, message: `${names}: no ${missing[0]?.type === "team" ? "team" : "member"} of this organization` });
  }
  return errors;
}

export type ResolvedOwner = { type: "user"; id: string; email: string; name: string } | { type: "team"; id: number; slug: string };

/** A rule's owners the organization still has, in the order written. */
export function resolveOwners(rule: OwnershipRule, dir: OwnerDirectory): ResolvedOwner[] {
  const out: ResolvedOwner[] = [];
  for (const o of rule.owners) {
    if (o.type === "team") {
      const t = dir.teams.get(o.identifier);
      if (t) out.push({ type: "team", ...t });
    } else {
      const m = dir.members.get(o.identifier);
      if (m) out.push({ type: "user", ...m });
    }
  }
  return out;
}
