/**
 * The key lists of Sentry's query builders (issue 28; Grafana's data source offers them as
 * fields): `GET /organizations/{org}/tags/` → `[{key, name, totalValues}]` and
 * `GET /organizations/{org}/trace-items/attributes/?itemType=spans&attributeType=number` →
 * `[{key, name, attributeSource}]`. Pure: the tag keys and their value counts come from storage.
 */
import { AppError } from "../../../core/errors";
import { COLUMNS, type FieldType } from "./plan";

/** Sentry's TAG_LABELS (sentry/constants.py); any other key is title-cased with `_` as spaces. */
const TAG_LABELS: Record<string, string> = {
  exc_type: "Exception Type",
  "sentry:user": "User",
  "sentry:release": "Release",
  "sentry:dist": "Distribution",
  os: "OS",
  url: "URL",
  server_name: "Server",
};

/** Python's str.title(): a letter after a non-letter is upper case, every other letter lower. */
function title(s: string): string {
  return s.toLowerCase().replace(/(^|[^a-z])([a-z])/g, (_m, before: string, letter: string) => before + letter.toUpperCase());
}

export interface SentryTagKey {
  key: string;
  name: string;
  totalValues: number;
}

/** One tag key as Sentry's TagKeySerializer writes it (`sentry:` prefixes dropped from the key). */
export function sentryTagKey(key: string, distinctValues: number): SentryTagKey {
  return {
    key: key.replace(/^sentry:/, ""),
    name: TAG_LABELS[key] ?? title(key.replace(/_/g, " ")),
    totalValues: distinctValues,
  };
}

/** Attribute types Sentry's trace-items endpoint takes, and the column types each covers. */
const ATTRIBUTE_TYPES: Record<string, FieldType[]> = {
  number: ["duration", "number", "integer"],
  string: ["string"],
  boolean: ["boolean"],
};

/** Timestamps and ids are columns, not attributes to chart. */
const NOT_ATTRIBUTES = new Set([
  "precise.start_ts",
  "precise.finish_ts",
  "project.id",
  "timestamp",
  "timestamp_precise",
  "observed_timestamp",
]);

export interface SentryAttribute {
  key: string;
  name: string;
  attributeSource: { source_type: "sentry" };
}

/**
 * The attributes of spans or logs of one type that Errata's query API answers as fields (each key
 * works in `field=`, e.g. `avg(span.duration)`): the dataset's own columns. Custom attributes are
 * kept only as strings on the rows, so none is listed as a number.
 */
export function traceItemAttributes(q: URLSearchParams): SentryAttribute[] {
  const itemType = q.get("itemType") ?? "spans";
  const dataset = itemType === "spans" ? "spans" : itemType === "logs" ? "logs" : itemType === "tracemetrics" ? "tracemetrics" : null;
  if (!dataset)
    throw AppError.field("itemType", "format", `Unsupported itemType "${itemType.slice(0, 40)}": use spans, logs or tracemetrics.`);
  const attributeType = q.get("attributeType") ?? "string";
  const types = ATTRIBUTE_TYPES[attributeType];
  if (!types)
    throw AppError.field(
      "attributeType",
      "format",
      `Unsupported attributeType "${attributeType.slice(0, 40)}": use number, string or boolean.`,
    );
  const substring = (q.get("substringMatch") ?? "").toLowerCase();
  return Object.entries(COLUMNS[dataset])
    .filter(([name, type]) => types.includes(type) && !NOT_ATTRIBUTES.has(name) && name.toLowerCase().includes(substring))
    .map(([name]) => ({ key: name, name, attributeSource: { source_type: "sentry" as const } }));
}
