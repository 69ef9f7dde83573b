/**
 * Sentry's message normalisation for grouping (reference §7.1, `message:v1`): the first two
 * non-empty lines, then variable parts replaced by placeholders so that "Order 123 failed" and
 * "Order 456 failed" land in one issue.
 *
 * One combined pattern, scanned left to right; the first alternative that matches at a position
 * wins (email before URL before IP …), as in Sentry. Every alternative either starts on a
 * boundary that a lookbehind pins down or on a fixed literal, so a long run of word characters
 * is tried once, not once per position (no quadratic rescans on 8 KiB messages).
 */

const HEX = "[0-9a-fA-F]";
const H16 = `${HEX}{1,4}`;

// Never starts right after a placeholder's ">" either, so parameterising twice changes nothing
// ("A@0#@A" → "<email>#@A", not "<email><email>" on a second pass).
const EMAIL =
  "(?<![\\w.!#$%&'*+/=?^`{|}~>-])[\\w.!#$%&'*+/=?^`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*";
const URL = "\\b(?:wss?|https?|ftp)://[^\\s/$.?#][^\\s]*";
const IPV4_OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = `(?<![\\w.])${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}(?!\\w|\\.\\d)`;
// Full form, or a `::`-compressed form with at least one group; never glued to word chars,
// colons or placeholders, so `std::vector` and `12:30:45` stay as they are and a second pass
// over "a::<int>" changes nothing.
const IPV6 = `(?<![\\w:>])(?:(?:${H16}:){7}${H16}|(?:${H16}(?::${H16}){0,6})?::${H16}(?::${H16}){0,6}|${H16}(?::${H16}){0,6}::)(?![\\w:<])`;
const UUID = `\\b${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}\\b`;
const SHA1 = `\\b${HEX}{40}\\b`;
const MD5 = `\\b${HEX}{32}\\b`;
const ISO_DATE = "\\b\\d{4}-[01]\\d-[0-3]\\d(?:[T ][0-2]\\d:[0-5]\\d(?::[0-5]\\d(?:[.,]\\d+)?)?(?:Z|[+-][0-2]\\d:?[0-5]\\d)?)?\\b";
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const WEEKDAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
// RFC 2822 ("Tue, 01 Oct 2024 10:20:30 +0000") and the C asctime form ("Tue Oct  1 10:20:30 2024").
const RFC_DATE = `\\b(?:${WEEKDAY},?\\s+)?(?:\\d{1,2}\\s+${MONTH}\\s+\\d{4}|${MONTH}\\s+\\d{1,2})\\s+[0-2]\\d:[0-5]\\d(?::[0-5]\\d)?(?:\\s+\\d{4})?(?:\\s+(?:[+-]\\d{4}|GMT|UTC))?\\b`;
const HEXNUM = `\\b0[xX]${HEX}+\\b`;
const FLOAT = "(?:-|\\b)\\d+\\.\\d+\\b";
const INT = "(?:-|\\b)\\d+\\b";
const QUOTED = "='[\\w\\s]+'";

const KINDS = ["email", "url", "ip", "ip", "uuid", "sha1", "md5", "date", "date", "hex", "float", "int", "quoted_str"] as const;
const PATTERN = new RegExp(
  [EMAIL, URL, IPV4, IPV6, UUID, SHA1, MD5, ISO_DATE, RFC_DATE, HEXNUM, FLOAT, INT, QUOTED].map((p) => `(${p})`).join("|"),
  "g",
);

/** Replaces variable parts of a message by `<email>`, `<url>`, `<ip>`, `<uuid>`, `<int>`, … */
export function parameterize(text: string): string {
  // Most messages have no digit, '@', '=' or '://': skip the scan entirely.
  if (!/[\d@=:]/.test(text)) return text;
  return text.replace(PATTERN, (...groups: unknown[]) => {
    for (let i = 0; i < KINDS.length; i++) {
      if (groups[i + 1] !== undefined) {
        const kind = KINDS[i] as (typeof KINDS)[number];
        return kind === "quoted_str" ? "=<quoted_str>" : `<${kind}>`;
      }
    }
    return String(groups[0]);
  });
}

/**
 * The first two non-empty lines, trimmed; `...` appended when anything was cut (Sentry's
 * `trim_message_for_grouping`).
 */
export function trimMessageForGrouping(text: string): string {
  const kept: string[] = [];
  let cut = false;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).replace(/\r$/, "");
    if (line.trim() !== "") {
      if (kept.length === 2) {
        cut = true;
        break;
      }
      kept.push(line);
    }
    start = end + 1;
  }
  const joined = kept.join("\n").trim();
  return cut ? `${joined}...` : joined;
}

/** What grouping hashes for a message or an exception value. */
export function normalizeMessageForGrouping(text: string): string {
  return parameterize(trimMessageForGrouping(text));
}

// A quoted identifier with a long number in it is generated per connection or per run (Django's
// `savepoint "s140061535458112_x1"`, temporary table names): the same error on every server.
const GENERATED_IDENTIFIER = /(["'`])[A-Za-z_][\w$]*?\d{4,}[\w$]*\1/g;

/** Grouping v3's message normalisation: v2's, plus generated quoted identifiers as `<quoted_str>`. */
export function normalizeMessageForGroupingV3(text: string): string {
  const base = normalizeMessageForGrouping(text);
  if (!/\d{4}/.test(base)) return base;
  return base.replace(GENERATED_IDENTIFIER, "<quoted_str>");
}
