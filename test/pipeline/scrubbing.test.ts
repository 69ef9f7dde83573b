/**
 * PII scrubbing end to end: events carrying every kind of secret go through the queue and the
 * digest; then the database itself is searched for the secrets — every row of every table (text
 * columns, blobs raw and gunzipped) on both dialects, and on SQLite the bytes of the database file
 * and its WAL, which also hold deleted rows (the queue row with the raw body is deleted after
 * digestion, so its content must not linger there either).
 */
import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { decodePayloadText, getEvent } from "../../src/storage/events/events";
import { getIssue } from "../../src/storage/issues/issues";
import { queueFileOf } from "../../src/storage/queue/file";
import { enqueueMany, queueDepth } from "../../src/storage/queue/queue";
import { dialects, openTestDb, type TestDatabase } from "../helpers/test-db";
import { toEnvelope } from "./corpus";
import { createProject, drain, hexId } from "./helpers";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A Visa number with a valid Luhn digit, built from distinctive digits. */
function cardNumber(body15: string): string {
  const digits = body15.split("").map(Number);
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Positions counted from the right including the check digit: these are the doubled ones.
    let d = digits[digits.length - 1 - i] as number;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${body15}${(10 - (sum % 10)) % 10}`;
}

const CARD = cardNumber("497312345678901");
const CARD_SPACED = CARD.replace(/(\d{4})(?=\d)/g, "$1 ");
const M = {
  password: "mkPasswordQ7x1",
  bearer: "mkBearerTokenQ7x2",
  cookie: "mkCookieQ7x3",
  pem: "mkPemBodyQ7x4",
  urlPassword: "mkUrlPwQ7x5",
  queryToken: "mkQueryTokQ7x6",
  apiKeyInCrumb: "mkCrumbKeyQ7x7",
  frameVar: "mkFrameVarQ7x8",
  context: "mkContextQ7x9",
  userExtra: "mkUserExtraQ7x10",
  tag: "mkTagQ7x11",
  bodyField: "mkBodyFieldQ7x12",
  envSecret: "mkEnvSecretQ7x13",
  userIp: "203.0.113.177",
  card: CARD,
  cardSpaced: CARD_SPACED,
};

function secretEvent(n: number): Record<string, unknown> {
  return {
    platform: "node",
    message: `payment with card ${CARD_SPACED} failed`,
    exception: {
      values: [
        {
          type: "Error",
          value: `connect postgres://app:${M.urlPassword}@db.internal/shop failed for card ${CARD}`,
          stacktrace: {
            frames: [
              {
                filename: "/srv/app/pay.js",
                function: "pay",
                in_app: true,
                context_line: "  await db.connect(url);",
                vars: { secret: M.frameVar, amount: 12 },
              },
            ],
          },
        },
      ],
    },
    extra: { password: M.password, pem: `-----BEGIN PRIVATE KEY-----\n${M.pem}\n-----END PRIVATE KEY-----`, n },
    contexts: { app: { session_token: M.context, name: "shop" } },
    tags: { auth_token: M.tag, region: "eu" },
    user: { id: `user-${n}`, ip_address: M.userIp, password_hash: M.userExtra },
    request: {
      url: `https://shop.example/callback?step=2&access_token=${M.queryToken}`,
      method: "POST",
      headers: { Authorization: `Bearer ${M.bearer}`, Cookie: `sid=${M.cookie}` },
      cookies: { sid: M.cookie },
      data: { username: "bob", credit_card: M.bodyField },
      env: { SECRET_KEY: M.envSecret, REMOTE_ADDR: M.userIp },
    },
    breadcrumbs: [{ category: "http", message: `GET https://api.example/v1/items?api_key=${M.apiKeyInCrumb}`, data: { url: "/v1/items" } }],
  };
}

type Row = Record<string, unknown>;

/** Every row of every table of ours (Better Auth's tables are not created by openTestDb). */
async function allRows(db: Db): Promise<Array<{ table: string; row: Row }>> {
  const out: Array<{ table: string; row: Row }> = [];
  // SQLite: the queue's own file too (queue-file.ts), whose tables have the same names.
  for (const store of db.queueDb ? [db, db.queueDb] : [db]) {
    const tables =
      store.dialect === "sqlite"
        ? (
            await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(
              store.kysely,
            )
          ).rows
        : (
            await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(
              store.kysely,
            )
          ).rows;
    for (const { name } of tables) {
      const rows = (await sql<Row>`select * from ${sql.table(name)}`.execute(store.kysely)).rows;
      for (const row of rows) out.push({ table: name, row });
    }
  }
  return out;
}

/** The searchable text of a value: strings as they are, blobs raw and (event payloads) decompressed. */
function texts(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
    const buf = Buffer.from(v);
    const out = [buf.toString("latin1")];
    if (buf[0] === 0x1f && buf[1] === 0x8b) out.push(gunzipSync(buf).toString("utf8"));
    else if (buf[0] === 0x01) {
      // Brotli event payloads (storage/events/events.ts); another blob may start with the same byte.
      try {
        out.push(decodePayloadText(buf));
      } catch {}
    }
    return out;
  }
  return v === null || v === undefined ? [] : [String(v)];
}

function markersIn(haystack: string): string[] {
  return Object.entries(M)
    .filter(([, marker]) => haystack.includes(marker))
    .map(([name]) => name);
}

describe.each(await dialects())("PII scrubbing on %s", (dialect) => {
  let db: Db;
  let info: TestDatabase;
  let close: () => Promise<void>;
  let projectId: number;
  const ids = [1, 2, 3].map((n) => hexId(`scrub-${dialect}-${n}`));

  beforeAll(async () => {
    ({ db, close, info } = await openTestDb(dialect));
    projectId = await createProject(db, "scrub");
    // This project also removes IP addresses.
    await db.kysely
      .updateTable("projects")
      .set({ settings: JSON.stringify({ scrubbing: { scrubIp: true } }) })
      .where("id", "=", projectId)
      .execute();
    const body = (n: number) => toEnvelope(secretEvent(n), ids[n - 1] as string);
    await enqueueMany(
      db,
      [1, 2, 3].map((n) => ({
        projectId,
        keyId: 1,
        receivedAt: NOW,
        clientIp: "198.51.100.9",
        kind: n === 3 ? ("store" as const) : ("envelope" as const),
        body: n === 3 ? Buffer.from(JSON.stringify({ ...secretEvent(n), event_id: ids[2] })) : body(n),
      })),
    );
    expect(await drain(db, NOW)).toMatchObject({ events: 3, failed: 0 });
  });
  afterAll(async () => close());

  test("the events are stored, readable, and say what was scrubbed (paths, not values)", async () => {
    expect(await queueDepth(db)).toBe(0);
    const ev = await getEvent(db, projectId, ids[0] as string);
    expect(ev).toBeDefined();
    const payload = ev?.event as Record<string, unknown> & { errata: { notes: Array<{ type: string; path?: string }> } };
    expect(payload.extra).toMatchObject({ password: "[Filtered]", n: 1 });
    expect(payload.request).toMatchObject({ method: "POST" });
    const scrubbedPaths = payload.errata.notes.filter((n) => n.type === "scrubbed").map((n) => n.path);
    expect(scrubbedPaths).toEqual(
      expect.arrayContaining(["extra.password", "request.headers.Authorization", "user.ip_address", "exception.values.0.value"]),
    );
    const issue = await getIssue(db, ev?.issueId ?? -1);
    // The title comes from the scrubbed value.
    expect(issue?.title).toBe("Error: connect postgres://app:[Filtered]@db.internal/shop failed for card [Filtered]");
    expect(issue?.eventCount).toBe(3);
  });

  test("no secret in any row of any table (text columns, blobs raw and decompressed); the queue is empty", async () => {
    const rows = await allRows(db);
    expect(rows.filter((r) => r.table === "queue")).toEqual([]);
    expect(rows.filter((r) => r.table === "events")).toHaveLength(3);
    // The search reads the decompressed payloads (a blob it could not open would hide a secret).
    for (const r of rows.filter((x) => x.table === "events")) expect(texts(r.row.payload)[1]).toContain("[Filtered]");
    const found: string[] = [];
    for (const { table, row } of rows) {
      for (const [column, value] of Object.entries(row)) {
        for (const text of texts(value)) for (const m of markersIn(text)) found.push(`${table}.${column}: ${m}`);
      }
    }
    expect(found).toEqual([]);
  });

  test.runIf(dialect === "sqlite")("no secret in the bytes of the database files and their WALs (deleted rows included)", async () => {
    const file = info.config.kind === "sqlite" ? info.config.file : "";
    const queueFile = queueFileOf(file);
    expect(fs.existsSync(queueFile)).toBe(true);
    const found: string[] = [];
    for (const f of [file, `${file}-wal`, queueFile, `${queueFile}-wal`]) {
      if (!fs.existsSync(f)) continue;
      const bytes = fs.readFileSync(f).toString("latin1");
      for (const m of markersIn(bytes)) found.push(`${path.basename(f)}: ${m}`);
    }
    expect(found).toEqual([]);
  });
});
