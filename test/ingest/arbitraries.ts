/**
 * fast-check generators of hostile envelopes: random structure (wrong and negative/NaN/huge
 * lengths, missing newlines, huge headers, invalid UTF-8, deep and non-object JSON, unknown
 * types), and mutations (truncation, flipped and inserted bytes, lost newlines, rewritten
 * lengths) of the real @sentry/node captures.
 */
import fc from "fast-check";
import { nodeEnvelopeCaptures } from "../helpers/ingest-fixtures";

const ID = "9ec79c33ec9942ab8353589fcb2e04dc";

const deepJson = fc.integer({ min: 1, max: 20_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`);
const deepObject = fc.integer({ min: 1, max: 5_000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`);
const invalidUtf8 = fc
  .uint8Array({ minLength: 1, maxLength: 64 })
  .map((b) => Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(b)]));

const payload: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
  fc.constant(Buffer.from(`{"event_id":"${ID}","message":"ok","exception":{"values":[{"type":"E","value":"v"}]}}`)),
  deepJson.map((s) => Buffer.from(s)),
  deepObject.map((s) => Buffer.from(s)),
  invalidUtf8,
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
);

const lengthField = fc.oneof(
  fc.constant(undefined),
  fc.constant("exact"),
  fc.nat({ max: 5000 }),
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.double(),
  fc.constantFrom("NaN", "12", null, true, 1e300, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2),
);

const itemType = fc.oneof(
  fc.constantFrom(
    "event",
    "attachment",
    "session",
    "sessions",
    "client_report",
    "user_report",
    "feedback",
    "raw_security",
    "transaction",
    "replay_recording",
    "check_in",
    "statsd",
  ),
  fc.string({ maxLength: 12 }),
);

const item = fc.record({
  type: fc.oneof({ weight: 9, arbitrary: itemType }, { weight: 1, arbitrary: fc.jsonValue() }),
  length: lengthField,
  payload,
  extra: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  newline: fc.boolean(),
});

const envelopeHeader: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .constantFrom("{}", `{"event_id":"${ID}"}`, `{"event_id":"${ID.toUpperCase()}","sent_at":"2026-01-01T00:00:00Z"}`)
    .map((s) => Buffer.from(s)),
  fc
    .record({ event_id: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue()), dsn: fc.option(fc.string({ maxLength: 60 })) })
    .map((h) => Buffer.from(JSON.stringify(h))),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? "")),
  fc.integer({ min: 8_000, max: 20_000 }).map((n) => Buffer.from(`{"pad":"${"x".repeat(n)}"}`)),
  invalidUtf8,
  fc.constant(Buffer.alloc(0)),
);

/** A structurally random envelope. */
export const randomEnvelope: fc.Arbitrary<Buffer> = fc
  .tuple(envelopeHeader, fc.array(item, { maxLength: 5 }), fc.boolean())
  .map(([head, items, trailing]) => {
    const parts: Buffer[] = [head];
    for (const it of items) {
      const h: Record<string, unknown> = { ...it.extra, type: it.type };
      if (it.length === "exact") h.length = it.payload.length;
      else if (it.length !== undefined) h.length = it.length;
      parts.push(Buffer.from(`${it.newline ? "\n" : ""}${JSON.stringify(h)}\n`), it.payload);
    }
    if (trailing) parts.push(Buffer.from("\n"));
    return Buffer.concat(parts);
  });

const captures = nodeEnvelopeCaptures().map((c) => c.decoded);

type Mutation = (b: Buffer) => Buffer;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((n) => (b: Buffer) => b.subarray(0, n % (b.length + 1))),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([n, v]) => (b: Buffer) => {
    const c = Buffer.from(b);
    if (c.length > 0) c[n % c.length] = v;
    return c;
  }),
  fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 32 })).map(([n, ins]) => (b: Buffer) => {
    const at = n % (b.length + 1);
    return Buffer.concat([b.subarray(0, at), Buffer.from(ins), b.subarray(at)]);
  }),
  fc.nat().map((n) => (b: Buffer) => {
    // Drop one newline.
    const nls: number[] = [];
    for (let i = b.indexOf(0x0a); i !== -1; i = b.indexOf(0x0a, i + 1)) nls.push(i);
    if (nls.length === 0) return b;
    const at = nls[n % nls.length] as number;
    return Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
  }),
  fc.constantFrom("-1", "NaN", "1e9", "0", "99999999999999999999", '"7"', "null", "3.5").map((v) => (b: Buffer) => {
    // Rewrite (or add) an item's declared length.
    const s = b.toString("latin1");
    const re = /\{"type":"([a-z_]+)"(,"length":[^,}]*)?/;
    return Buffer.from(
      s.replace(re, (_m, t: string) => `{"type":"${t}","length":${v}`),
      "latin1",
    );
  }),
  fc.constant((b: Buffer) => Buffer.concat([b, b.subarray(b.indexOf(0x0a))])),
);

/** A real capture with 1–4 mutations applied. */
export const mutatedCapture: fc.Arbitrary<Buffer> = fc
  .tuple(fc.constantFrom(...captures), fc.array(mutation, { minLength: 1, maxLength: 4 }))
  .map(([b, ms]) => ms.reduce((acc, m) => m(acc), b));

export const hostileEnvelope: fc.Arbitrary<Buffer> = fc.oneof(randomEnvelope, mutatedCapture);

// ---------------------------------------------------------------------------------------------
// Odd events (issue 14): every field the normaliser reads, with odd numbers, deep nesting and
// wrong types. Serialised by hand (`deepText`) because JSON.stringify cannot write what the
// attacker can: a value nested 100,000 deep.

/** A JSON value as text, possibly nested deeper than JSON.stringify could write. */
export type JsonText = string;

const oddNumber = fc.constantFrom(
  "0",
  "-0",
  "-1",
  "1e300",
  "-1e300",
  "1e400",
  "5e-324",
  "1.7976931348623157e308",
  "9007199254740993",
  "1e11",
  "8.64e12",
  "1e21",
);

/** Seconds, milliseconds, microseconds, nanoseconds of "now", and absurd magnitudes. */
const oddTimestamp: fc.Arbitrary<JsonText> = fc.oneof(
  fc.constantFrom(1, 1e3, 1e6, 1e9).map((scale) => String(Math.round((Date.now() / 1000) * scale))),
  oddNumber,
  fc.constantFrom('"2026-13-45T99:99:99Z"', '"1e20"', '"-5"', '"tomorrow"', "true", "[]", "{}", "null"),
);

/** A value nested 1–100,000 deep, as objects or arrays. */
const deepValue: fc.Arbitrary<JsonText> = fc
  .tuple(fc.integer({ min: 1, max: 100_000 }), fc.boolean())
  .map(([n, arrays]) => (arrays ? `${"[".repeat(n)}1${"]".repeat(n)}` : `${'{"a":'.repeat(n)}1${"}".repeat(n)}`));

const wrongType: fc.Arbitrary<JsonText> = fc.oneof(
  oddNumber,
  fc.constantFrom("null", "true", '""', '"x"', "[]", "{}", "[null]", '[["a"]]', '{"values":7}', '{"values":[1,"x",null]}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"),
);

/** Any value a hostile or buggy SDK may put in a field. */
const oddValue: fc.Arbitrary<JsonText> = fc.oneof({ weight: 3, arbitrary: wrongType }, { weight: 1, arbitrary: deepValue });

const obj = (members: Array<[string, JsonText]>): JsonText => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;

/** One top-level field of an event the normaliser reads, with an odd value where it counts. */
const oddField: fc.Arbitrary<[string, JsonText]> = fc.oneof(
  oddTimestamp.map((v): [string, JsonText] => ["timestamp", v]),
  fc.tuple(oddTimestamp, oddValue, oddValue).map(([ts, data, msg]): [string, JsonText] => [
    "breadcrumbs",
    `[${obj([
      ["timestamp", ts],
      ["data", data],
      ["message", msg],
    ])}]`,
  ]),
  fc.tuple(oddValue, oddValue, oddValue).map(([vars, lineno, data]): [string, JsonText] => [
    "exception",
    obj([
      [
        "values",
        `[${obj([
          ["type", '"E"'],
          ["value", '"v"'],
          [
            "mechanism",
            obj([
              ["type", '"x"'],
              ["data", data],
            ]),
          ],
          [
            "stacktrace",
            obj([
              [
                "frames",
                `[${obj([
                  ["function", '"f"'],
                  ["lineno", lineno],
                  ["vars", vars],
                ])}]`,
              ],
            ]),
          ],
        ])}]`,
      ],
    ]),
  ]),
  fc.tuple(oddValue, oddValue).map(([data, id]): [string, JsonText] => [
    "user",
    obj([
      ["id", id],
      ["data", data],
    ]),
  ]),
  fc.tuple(oddValue, oddValue).map(([a, b]): [string, JsonText] => [
    "extra",
    obj([
      ["a", a],
      ["b", b],
    ]),
  ]),
  fc.tuple(oddValue, oddValue).map(([a, b]): [string, JsonText] => [
    "contexts",
    obj([
      ["a", a],
      ["trace", b],
    ]),
  ]),
  fc.tuple(oddValue, oddValue).map(([h, d]): [string, JsonText] => [
    "request",
    obj([
      ["headers", h],
      ["data", d],
      ["url", '"http://x/?a=1"'],
    ]),
  ]),
  fc
    .constantFrom(
      "tags",
      "fingerprint",
      "level",
      "platform",
      "release",
      "environment",
      "message",
      "logentry",
      "threads",
      "sdk",
      "modules",
      "debug_meta",
      "unknown_field",
    )
    .chain((key) => oddValue.map((v): [string, JsonText] => [key, v])),
);

/** An event JSON text with 1–4 odd fields (later duplicates of a key win, as in JSON.parse). */
export const oddEventJson: fc.Arbitrary<JsonText> = fc
  .array(oddField, { minLength: 1, maxLength: 4 })
  .map((fields) => obj([["message", '"odd"'], ...fields]));
