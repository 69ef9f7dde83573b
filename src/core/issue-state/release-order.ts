/**
 * Which release is later? Semver precedence when both versions parse (pre-release aware,
 * `1.10.0 > 1.9.0`, `1.2.0-rc.1 < 1.2.0`), else the order Errata first knew the releases in.
 * Sentry-style `package@version+build` names compare only when the packages match.
 */

export interface SemVer {
  /** `package@` prefix, "" when absent */
  package: string;
  /** numeric core as digit strings (arbitrary length): major, minor, patch[, revision] */
  core: string[];
  /** pre-release identifiers; empty for a release */
  pre: string[];
}

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

/** Parses `1.2`, `v1.2.3`, `1.2.3.4`, `1.2.3-rc.1+build.5`, `my-app@1.2.3`; undefined otherwise. */
export function parseSemver(release: string): SemVer | undefined {
  const at = release.lastIndexOf("@");
  const pkg = at > 0 ? release.slice(0, at) : "";
  const m = VERSION.exec(at > 0 ? release.slice(at + 1) : release);
  if (!m) return undefined;
  const core = [m[1], m[2], m[3] ?? "0", m[4] ?? "0"].map((d) => stripZeros(d as string));
  return { package: pkg, core, pre: m[5] ? m[5].split(".") : [] };
}

const stripZeros = (digits: string): string => digits.replace(/^0+(?=\d)/, "");

/** Compares digit strings of any length numerically. */
function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const isNumeric = (s: string): boolean => /^\d+$/.test(s);

/** Semver §11 for pre-release identifiers. */
function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const nx = isNumeric(x);
    const ny = isNumeric(y);
    if (nx && ny) return compareDigits(stripZeros(x), stripZeros(y));
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

/** Precedence of two parsed versions (-1, 0, 1); build metadata does not count. */
export function compareSemver(a: SemVer, b: SemVer): number {
  for (let i = 0; i < a.core.length; i++) {
    const c = compareDigits(a.core[i] as string, b.core[i] as string);
    if (c !== 0) return c;
  }
  return comparePre(a.pre, b.pre);
}

export interface ReleaseRef {
  version: string;
  /** when Errata first knew the release (epoch ms); null when unknown */
  order: number | null;
}

/**
 * True when both versions parse as semver of the same package and thus need no creation times.
 */
export function semverComparable(a: string, b: string): boolean {
  const sa = parseSemver(a);
  const sb = parseSemver(b);
  return sa !== undefined && sb !== undefined && sa.package === sb.package && compareSemver(sa, sb) !== 0;
}

/**
 * Is `a` later than `b`? Same version → no. Semver when both parse (same package, different
 * precedence); else creation order. When the order is unknown the answer is yes: surfacing a
 * possible regression beats hiding one.
 */
export function isReleaseLater(a: ReleaseRef, b: ReleaseRef): boolean {
  if (a.version === b.version) return false;
  const sa = parseSemver(a.version);
  const sb = parseSemver(b.version);
  if (sa && sb && sa.package === sb.package) {
    const c = compareSemver(sa, sb);
    if (c !== 0) return c > 0;
  }
  if (a.order === null || b.order === null) return true;
  return a.order > b.order;
}

/**
 * The latest of a project's releases: the highest semver when every one parses (same package),
 * else the most recently created.
 */
export function latestRelease<T extends ReleaseRef>(releases: T[]): T | undefined {
  if (releases.length === 0) return undefined;
  const parsed = releases.map((r) => parseSemver(r.version));
  const pkg = parsed[0]?.package;
  const allSemver = parsed.every((p) => p !== undefined && p.package === pkg);
  let best = 0;
  for (let i = 1; i < releases.length; i++) {
    const cur = releases[i] as T;
    const top = releases[best] as T;
    const later = allSemver
      ? compareSemver(parsed[i] as SemVer, parsed[best] as SemVer) > 0 ||
        (compareSemver(parsed[i] as SemVer, parsed[best] as SemVer) === 0 && (cur.order ?? 0) > (top.order ?? 0))
      : (cur.order ?? 0) > (top.order ?? 0);
    if (later) best = i;
  }
  return releases[best];
}
