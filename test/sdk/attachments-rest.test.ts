/**
 * Attachments end to end on the real server (SQLite): @sentry/node sends an exception with a
 * scope attachment; the digest stores it with its event; the REST API lists it in Sentry's shape
 * and serves its bytes as a download (never rendered, never sniffed) to a token that may read
 * the event — and to nobody else.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server";

const BYTES = Buffer.concat([Buffer.from("first line\nsecond line\n"), Buffer.from([0, 1, 2, 255])]);

describe("attachments over the REST API (real server, SQLite)", () => {
  let server: TestServer;
  let token: string;
  let otherToken: string;
  let eventId: string;

  beforeAll(async () => {
    server = await startServer({ dialect: "sqlite" });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    await server.cli("user", "create", "--email", "other@example.com", "--password", "correct horse battery", "--org", "globex");
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "node");
    await server.cli("project", "create", "--org", "globex", "--name", "web");
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "project:read,event:read");
    otherToken = await server.cli("token", "create", "--email", "other@example.com", "--scopes", "project:read,event:read");
    const dir = path.join(ROOT, ".tmp", `attach-${process.pid}`);
    fs.mkdirSync(dir, { recursive: true });
    const script = path.join(dir, "send.mjs");
    fs.writeFileSync(
      script,
      [
        'import * as Sentry from "@sentry/node";',
        "Sentry.init({ dsn: process.env.DSN });",
        'Sentry.getCurrentScope().addAttachment({ filename: "crash <1>.log", data: Buffer.from(process.env.BYTES, "base64"), contentType: "text/html" });',
        'const id = Sentry.captureException(new Error("with an attachment"));',
        "await Sentry.flush(10000);",
        "process.stdout.write(id);",
      ].join("\n"),
    );
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script], {
        env: { ...process.env, DSN: dsn, BYTES: BYTES.toString("base64") },
        timeout: 30_000,
      });
      eventId = stdout.trim().replace(/-/g, "");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(async () => server?.stop());

  test("listed in Sentry's shape and downloaded byte for byte, as a download", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const base = `${server.url}/api/0/projects/acme/web/events/${eventId}/attachments/`;
    const list = await eventually(
      async () => {
        const res = await fetch(base, { headers: auth });
        const body = (await res.json()) as Array<Record<string, unknown>>;
        return res.ok && body.length > 0 ? body : undefined;
      },
      30_000,
      "the attachment",
    );
    expect(list).toMatchObject([
      { name: "crash <1>.log", mimetype: "text/html", size: BYTES.length, type: "event.attachment", event_id: eventId },
    ]);
    const id = String(list[0]?.id);
    const meta = await fetch(`${base}${id}/`, { headers: auth });
    expect(await meta.json()).toMatchObject({ id, name: "crash <1>.log", sha1: expect.stringMatching(/^[0-9a-f]{40}$/) });

    const file = await fetch(`${base}${id}/?download=1`, { headers: auth });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(BYTES)).toBe(true);
    // An SDK said text/html: served as bytes to download, not as a page of our origin.
    expect(file.headers.get("content-type")).toBe("application/octet-stream");
    expect(file.headers.get("content-disposition")).toBe("attachment; filename=\"crash <1>.log\"; filename*=UTF-8''crash%20%3C1%3E.log");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("content-security-policy")).toContain("sandbox");

    // Another organization's token, an anonymous request, an unknown id: nothing.
    expect((await fetch(`${base}${id}/?download=1`, { headers: { authorization: `Bearer ${otherToken}` } })).status).toBe(404);
    expect(
      (
        await fetch(`${server.url}/api/0/projects/globex/web/events/${eventId}/attachments/${id}/?download=1`, {
          headers: { authorization: `Bearer ${otherToken}` },
        })
      ).status,
    ).toBe(404);
    expect((await fetch(`${base}${id}/?download=1`)).status).toBe(401);
    expect((await fetch(`${base}999999/?download=1`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${base}abc/`, { headers: auth })).status).toBe(404);
  });
});
