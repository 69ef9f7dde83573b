/**
 * Secrets recognised inside any string (reference: Sentry's/Relay's default PII rules), each
 * guarded by a cheap `includes` test so ordinary strings cost a few scans. Every pattern is
 * linear: no nested quantifiers over the same characters, starts pinned by lookbehinds.
 */

export const FILTERED = "[Filtered]";

export type SecretKind = "private_key" | "bearer_token" | "url_password" | "sensitive_parameter" | "credit_card";

/** Sentry's default sensitive field names plus the usual suspects; matched as substrings. */
export const DEFAULT_SENSITIVE_KEYS = [
  "password",
  "passwd",
  "mysql_pwd",
  "secret",
  "api_key",
  "apikey",
  "token",
  "auth",
  "credentials",
  "credential",
  "cookie",
  "session",
  "csrf",
  "xsrf",
  "private_key",
  "privatekey",
  "bearer",
  "credit_card",
  "creditcard",
  "card_number",
  "cardnumber",
  "cc_number",
  "ccnumber",
  "cvv",
  "cvc",
] as const;

/** `X-Api-Key`, `api key`, `Api_Key` → `x_api_key`, `api_key`, `api_key`. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-\s.]/g, "_");
}

/** Strings shorter than this are scanned: the scans cost about what a lookup does. */
const MEMO_MIN_LENGTH = 16;
/** Longer strings (request bodies, messages) rarely repeat verbatim; not worth the memory. */
const MEMO_MAX_LENGTH = 512;
/**
 * Clean strings remembered by all matchers of this thread together (at most ~10 MB, typically
 * ~1 MB): each key configuration has its own memo, and configurations come from project settings.
 */
const MEMO_ENTRIES = 10_000;
let memoUsed = 0;

/** Clean strings remembered now, all matchers together (for tests and diagnostics). */
export function scrubMemoSize(): number {
  return memoUsed;
}

/** Decides whether a key names a secret: substring match on the normalised key; safe keys win. */
export class KeyMatcher {
  private readonly pattern: RegExp;
  private readonly safe: Set<string>;
  private readonly cache = new Map<string, boolean>();
  private readonly clean = new Set<string>();

  constructor(extraKeys: string[], safeKeys: string[]) {
    const words = [...DEFAULT_SENSITIVE_KEYS, ...extraKeys.map(normalizeKey).filter((k) => k !== "")].map((w) =>
      // `auth` (authorization, oauth, auth_token) but not `author`: the commonest false positive.
      w === "auth" ? "auth(?!or(?!iz))" : w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    );
    this.pattern = new RegExp(words.join("|"));
    this.safe = new Set(safeKeys.map(normalizeKey));
  }

  isSafe(key: string): boolean {
    return this.safe.size > 0 && this.safe.has(normalizeKey(key));
  }

  /**
   * scrubString with a memo of the strings it found clean: context lines, file paths and function
   * names repeat across an issue's events, and a set lookup costs less than the scans. Only clean
   * strings are kept, so the memo never holds a secret; it is bounded and simply restarts when full.
   */
  scrub(s: string, found: Set<SecretKind>): string {
    if (s.length < MEMO_MIN_LENGTH) return scrubString(s, this, found);
    if (this.clean.has(s)) return s;
    const out = scrubString(s, this, found);
    if (out !== s || found.size > 0 || s.length > MEMO_MAX_LENGTH) return out;
    // Full: this memo starts again (others keep theirs; if they hold the budget, nothing is added).
    if (memoUsed >= MEMO_ENTRIES) this.forgetMemo();
    if (memoUsed < MEMO_ENTRIES) {
      this.clean.add(s);
      memoUsed += 1;
    }
    return out;
  }

  /** Gives this matcher's memo back to the budget (call before dropping the matcher). */
  forgetMemo(): void {
    memoUsed -= this.clean.size;
    this.clean.clear();
  }

  isSensitive(key: string): boolean {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const k = normalizeKey(key);
    const sensitive = !this.safe.has(k) && this.pattern.test(k);
    // Keys repeat across events (header names, context keys); the cache stays small.
    if (this.cache.size < 2000) this.cache.set(key, sensitive);
    return sensitive;
  }
}

// ---------------------------------------------------------------------------------------------
// Credit cards: 13–19 digits (optionally grouped by spaces or dashes), a known issuer prefix, and
// a valid Luhn checksum — so timestamps and order numbers are left alone.

const CARD = /(?<![\d])(?:\d[ -]?){12,18}\d(?!\d)/g;
const ISSUER = /^(?:4|5[1-5]|2[2-7]|3[47]|3(?:0[0-5]|[689])|35|6(?:011|5|4[4-9]|2)|50|5[6-8]|6304|67)/;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function isCardNumber(text: string): boolean {
  const digits = text.replace(/[ -]/g, "");
  return digits.length >= 13 && digits.length <= 19 && ISSUER.test(digits) && luhnValid(digits);
}

// ---------------------------------------------------------------------------------------------
// The string scrubber

const PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;
const BEARER = /\bbearer[ \t]+[A-Za-z0-9\-._~+/]+=*/gi;
// `key=value` in query strings, form bodies and log lines.
const PARAM = /(?<=^|[?&;\s,(])([A-Za-z0-9_.\-[\]]{1,64})=([^&#\s;"',)]*)/g;
// `"key": "value"` in JSON text (e.g. a request body cut by trimming, so no longer parseable).
const JSON_PAIR = /"([^"\\]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
const URL_END = /[/?#\s"'<>]/;

/** Replaces `user:password@` in every URL of the string (scanned, not regex-matched). */
function scrubUrlPasswords(s: string): string {
  let out = "";
  let from = 0;
  let at = s.indexOf("://");
  while (at !== -1) {
    const start = at + 3;
    let end = start;
    while (end < s.length && !URL_END.test(s[end] as string)) end++;
    const authority = s.slice(start, end);
    const atSign = authority.lastIndexOf("@");
    const colon = atSign === -1 ? -1 : authority.indexOf(":");
    if (colon !== -1 && colon < atSign && atSign - colon > 1) {
      out += `${s.slice(from, start + colon + 1)}${FILTERED}`;
      from = start + atSign;
    }
    at = s.indexOf("://", Math.max(end, at + 3));
  }
  return from === 0 ? s : out + s.slice(from);
}

/**
 * Removes secrets from one string. `found` collects the kinds removed (for the processing note);
 * the string is returned unchanged (same reference) when nothing matched.
 */
export function scrubString(s: string, keys: KeyMatcher, found: Set<SecretKind>): string {
  let out = s;
  if (out.includes("PRIVATE KEY-----")) {
    const next = out.replace(PEM, FILTERED);
    if (next !== out) found.add("private_key");
    out = next;
  }
  if (out.length >= 10 && /bearer/i.test(out)) {
    const next = out.replace(BEARER, `Bearer ${FILTERED}`);
    if (next !== out) found.add("bearer_token");
    out = next;
  }
  if (out.includes("://") && out.includes("@")) {
    const next = scrubUrlPasswords(out);
    if (next !== out) found.add("url_password");
    out = next;
  }
  if (out.includes("=")) {
    const next = out.replace(PARAM, (m, key: string, value: string) =>
      value !== "" && value !== FILTERED && keys.isSensitive(key) ? `${key}=${FILTERED}` : m,
    );
    if (next !== out) found.add("sensitive_parameter");
    out = next;
  }
  if (out.includes('"') && out.includes(":")) {
    const next = out.replace(JSON_PAIR, (m, key: string, sep: string, value: string) =>
      value !== "" && value !== FILTERED && keys.isSensitive(key) ? `"${key}"${sep}"${FILTERED}"` : m,
    );
    if (next !== out) found.add("sensitive_parameter");
    out = next;
  }
  if (out.length >= 13 && /\d{4}/.test(out)) {
    const next = out.replace(CARD, (m) => (isCardNumber(m) ? FILTERED : m));
    if (next !== out) found.add("credit_card");
    out = next;
  }
  return out;
}
