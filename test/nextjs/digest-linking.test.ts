/**
 * Next.js through the real pipeline and services, on both databases, with payloads recorded from
 * @sentry/nextjs 11.0.0 (a production Next 16.4 app: the server's onRequestError event and the
 * browser's error.tsx event, same digest) and @sentry/browser + React 19 in Chromium:
 *   - the digest is indexed on both events and links them both ways, across projects of an org;
 *   - `digest:N` finds both issues; a pasted digest resolves to the server event;
 *   - browser mirror errors group per digest; deploy skew is flagged and grouped per release;
 *     minified React errors are titled with their decoded message.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/log";
import { createAuth, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { getEvent, type StoredEvent } from "../../src/storage/events/events";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects, openTestDb } from "../helpers/test-db";
import { drain, hexId } from "../pipeline/helpers";
import { fixtureEnvelope, queueRow, setTag } from "./helpers";

const NOW = Date.UTC(2026, 10, 22, 11, 31, 0);
const DAY = 24 * 3600 * 1000;
const DIGEST = "406327854";
const byNumber = (a: number, b: number) => a - b;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).code;
  }
}

describe.each(await dialects())("Next.js digests on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let services: ReturnType<typeof createServices>;
  let viewer: Viewer;
  let outsider: Viewer;
  const ids = {
    server: hexId("server"),
    client: hexId("client"),
    clientOther: hexId("client-other-digest"),
    clientOnly: hexId("client-only"),
    late: hexId("late"),
    skewA: hexId("skew-a"),
    skewB: hexId("skew-b"),
    skewNext: hexId("skew-next-release"),
    react418: hexId("react-418"),
    react418b: hexId("react-418-b"),
  };
  const project: Record<string, number> = {};

  beforeAll(async () => {
    const t = await openTestDb(dialect);
    db = t.db;
    close = t.close;
    const config = loadConfig({ PUBLIC_URL: "http://127.0.0.1:9999", DATA_DIR: t.info.dataDir });
    const secret = "test-secret-test-secret-test-secret";
    const auth = createAuth(db, config, secret);
    await migrateAuth(db, config, secret);
    services = createServices({ db, auth, config, log: createLogger("silent") });
    const owner = await services.operator.createOwner({ email: "ada@example.com", password: "a sturdy passphrase", orgSlug: "acme" });
    viewer = { userId: owner.userId, email: "ada@example.com", name: "Ada" };
    const other = await services.operator.createOwner({ email: "eve@example.com", password: "a sturdy passphrase", orgSlug: "other" });
    outsider = { userId: other.userId, email: "eve@example.com", name: "Eve" };
    for (const name of ["web-server", "web-browser", "legacy"])
      project[name] = (await services.operator.createProject({ orgSlug: "acme", name })).project.id;
    project.foreign = (await services.operator.createProject({ orgSlug: "other", name: "foreign" })).project.id;

    const S = "nextjs-server-render-error.envelope";
    const C = "nextjs-client-mirror-error.envelope";
    await enqueueMany(db, [
      queueRow(project["web-server"] as number, fixtureEnvelope(S, ids.server), NOW),
      queueRow(project["web-browser"] as number, fixtureEnvelope(C, ids.client), NOW + 1000),
      // Another server error's mirror: same message, different digest → its own issue.
      queueRow(
        project["web-browser"] as number,
        fixtureEnvelope(C, ids.clientOther, (e) => setTag(e, "digest", "1122334455")),
        NOW + 2000,
      ),
      // A digest only the browser reported (the server hook was missing), with Next's @E suffix.
      queueRow(
        project["web-browser"] as number,
        fixtureEnvelope(C, ids.clientOnly, (e) => setTag(e, "digest", "987654321@E42")),
        NOW + 3000,
      ),
      // The same digest weeks later in another project: outside the link window.
      queueRow(project.legacy as number, fixtureEnvelope(C, ids.late), NOW + 20 * DAY),
      // The same digest in another organization: never visible from acme.
      queueRow(project.foreign as number, fixtureEnvelope(S, hexId("foreign")), NOW),
      // Deploy skew: two chunk URLs and shapes in one release, one in the next release.
      queueRow(project["web-browser"] as number, fixtureEnvelope("browser-chunk-webpack.envelope", ids.skewA), NOW),
      queueRow(project["web-browser"] as number, fixtureEnvelope("browser-chunk-dynamic-import.envelope", ids.skewB), NOW),
      queueRow(
        project["web-browser"] as number,
        fixtureEnvelope("browser-chunk-webpack.envelope", ids.skewNext, (e) => {
          e.release = "web@2.1.0";
        }),
        NOW,
      ),
      // Minified React errors: the same code with other args lands together.
      queueRow(project["web-browser"] as number, fixtureEnvelope("browser-react-418-hydration.envelope", ids.react418), NOW),
      queueRow(
        project["web-browser"] as number,
        fixtureEnvelope("browser-react-418-hydration.envelope", ids.react418b, (e) => {
          const values = (e.exception as { values: Array<{ value: string }> }).values;
          const first = values[0] as { value: string };
          values[0] = { ...first, value: first.value.replace("args[]=text", "args[]=HTML") };
        }),
        NOW,
      ),
    ]);
    const r = await drain(db, NOW + 21 * DAY);
    expect(r.failed).toBe(0);
    expect(r.events).toBe(11);
  });
  afterAll(async () => close());

  async function stored(projectName: string, eventId: string): Promise<StoredEvent> {
    const ev = await getEvent(db, project[projectName] as number, eventId);
    if (!ev) throw new Error(`event ${eventId} not stored`);
    return ev;
  }

  async function issueOf(projectName: string, eventId: string): Promise<number> {
    return (await stored(projectName, eventId)).issueId;
  }

  test("the digest is indexed on the server event and on the browser event", async () => {
    const server = await stored("web-server", ids.server);
    const client = await stored("web-browser", ids.client);
    expect(server.digest).toBe(DIGEST);
    expect(client.digest).toBe(DIGEST);
    expect((server.event.errata as { digest?: unknown }).digest).toMatchObject({ value: DIGEST, side: "server", source: "tag:digest" });
    expect((client.event.errata as { digest?: unknown }).digest).toMatchObject({ value: DIGEST, side: "client" });
    // @E suffix: matched without it, shown with it.
    const suffixed = await stored("web-browser", ids.clientOnly);
    expect(suffixed.digest).toBe("987654321");
    expect((suffixed.event.errata as { digest?: { value: string } }).digest?.value).toBe("987654321@E42");
  });

  test("browser mirror errors group by digest, titled with it", async () => {
    const a = await issueOf("web-browser", ids.client);
    const b = await issueOf("web-browser", ids.clientOther);
    expect(a).not.toBe(b);
    const issue = await services.issues.get(viewer, "acme", a);
    expect(issue.title).toBe(`Error: An error occurred in the Server Components render (digest ${DIGEST})`);
    expect(issue.count).toBe(1);
  });

  test("digest:N finds the server and the browser issue; @E is ignored; non-digests are refused", async () => {
    // Search has no time window: the late event in "legacy" has the digest too.
    const expected = [
      await issueOf("web-server", ids.server),
      await issueOf("web-browser", ids.client),
      await issueOf("legacy", ids.late),
    ].sort(byNumber);
    const found = await services.issues.list(viewer, "acme", { query: `digest:${DIGEST}` });
    expect(found.items.map((i) => i.id).sort(byNumber)).toEqual(expected);
    const suffixed = await services.issues.list(viewer, "acme", { query: `digest:${DIGEST}@E7 is:unresolved` });
    expect(suffixed.items.map((i) => i.id).sort(byNumber)).toEqual(expected);
    const all = await services.issues.list(viewer, "acme", { query: `digest:${DIGEST}`, project: "legacy" });
    expect(all.items.map((i) => i.id)).toEqual([await issueOf("legacy", ids.late)]);
    expect((await services.issues.list(viewer, "acme", { query: "digest:555" })).items).toEqual([]);
    expect(await codeOf(services.issues.list(viewer, "acme", { query: "digest:NEXT_REDIRECT;push;/a;307;" }))).toBe("invalid_query");
  });

  test("the digest page lookup lists server first, then browser; nothing across organizations", async () => {
    const lookup = await services.digests.lookup(viewer, "acme", DIGEST);
    expect(lookup.key).toBe(DIGEST);
    expect(lookup.events.map((e) => [e.side, e.eventId])).toEqual([
      ["server", ids.server],
      ["client", ids.late],
      ["client", ids.client],
    ]);
    const server = lookup.events[0];
    expect(server).toMatchObject({
      projectSlug: "web-server",
      issueTitle: "Error: Invoice service refused the request (server component)",
    });
    expect(server?.issueShortId).toMatch(/^WEB-SERVER-\d+$/);
    const foreign = await services.digests.lookup(outsider, "other", DIGEST);
    expect(foreign.events.map((e) => e.projectSlug)).toEqual(["foreign"]);
    expect(await codeOf(services.digests.lookup(outsider, "acme", DIGEST))).toBe("not_found");
    expect(await codeOf(services.digests.lookup(viewer, "acme", "not a digest"))).toBe("invalid_query");
  });

  test("a pasted digest resolves to the server error, else to the browser event", async () => {
    expect((await services.digests.resolvePasted(viewer, "acme", ` ${DIGEST} `))?.issueId).toBe(await issueOf("web-server", ids.server));
    expect((await services.digests.resolvePasted(viewer, "acme", `${DIGEST}@E5`))?.side).toBe("server");
    const clientOnly = await services.digests.resolvePasted(viewer, "acme", "987654321");
    expect(clientOnly).toMatchObject({ side: "client", digest: "987654321@E42", issueId: await issueOf("web-browser", ids.clientOnly) });
    expect(await services.digests.resolvePasted(viewer, "acme", "Invoice")).toBeNull();
    expect(await services.digests.resolvePasted(viewer, "acme", "123456789")).toBeNull();
    expect(await services.digests.resolvePasted(outsider, "other", "987654321")).toBeNull();
  });

  test("linked both ways, within the 7-day window", async () => {
    const serverIssue = await issueOf("web-server", ids.server);
    const clientIssue = await issueOf("web-browser", ids.client);
    const fromServer = await services.digests.linkedForIssue(viewer, "acme", serverIssue);
    expect(fromServer.map((l) => [l.side, l.issueId, l.eventId])).toEqual([["client", clientIssue, ids.client]]);
    const fromClient = await services.digests.linkedForIssue(viewer, "acme", clientIssue);
    expect(fromClient.map((l) => [l.side, l.issueId, l.eventId, l.digest])).toEqual([["server", serverIssue, ids.server, DIGEST]]);
    // 20 days later: not linked to anything.
    expect(await services.digests.linkedForIssue(viewer, "acme", await issueOf("legacy", ids.late))).toEqual([]);
    expect(await codeOf(services.digests.linkedForIssue(outsider, "other", serverIssue))).toBe("not_found");
  });

  test("deploy skew: flagged on the issue, tagged on the event, grouped per release", async () => {
    const a = await issueOf("web-browser", ids.skewA);
    expect(await issueOf("web-browser", ids.skewB)).toBe(a);
    expect(await issueOf("web-browser", ids.skewNext)).not.toBe(a);
    const issue = await services.issues.get(viewer, "acme", a);
    expect(issue.flags).toEqual(["deploy-skew"]);
    expect(issue.title).toBe("Deploy skew (web@2.0.0): ChunkLoadError: Loading chunk 418 failed.");
    expect(issue.count).toBe(2);
    const listed = await services.issues.list(viewer, "acme", { project: "web-browser" });
    expect(listed.items.find((i) => i.id === a)?.flags).toEqual(["deploy-skew"]);
    const skewIssues = new Set([a, await issueOf("web-browser", ids.skewNext)]);
    expect(
      listed.items
        .filter((i) => i.flags?.includes("deploy-skew"))
        .map((i) => i.id)
        .sort(byNumber),
    ).toEqual([...skewIssues].sort(byNumber));
    const ev = await stored("web-browser", ids.skewB);
    expect(ev.event.tags).toContainEqual(["errata.class", "deploy-skew"]);
  });

  test("minified React errors: decoded title, grouped by code, raw value kept", async () => {
    const a = await issueOf("web-browser", ids.react418);
    expect(await issueOf("web-browser", ids.react418b)).toBe(a);
    const issue = await services.issues.get(viewer, "acme", a);
    expect(issue.title).toMatch(/^Error: Hydration failed because the server rendered text didn't match the client\./);
    expect(issue.metadata.react_error).toBe(418);
    const ev = await stored("web-browser", ids.react418b);
    expect((ev.event.exception as { values: Array<{ value: string }> }).values[0]?.value).toMatch(
      /^Minified React error #418; visit .*args\[\]=HTML/,
    );
    expect((ev.event.errata as { react?: { message: string } }).react?.message).toMatch(
      /^Hydration failed because the server rendered HTML didn't match/,
    );
  });
});
