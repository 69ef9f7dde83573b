/**
 * Issue 14 "Screens that tell the truth", the storage half, on both databases through the real
 * digest: a real @sentry/node `captureMessage` (SDK 11 wraps its stack in a synthetic exception)
 * becomes a message issue; browser contexts and tags come from the User-Agent with clean values;
 * a merge keeps the issue the dialog named and redirects the merged ids; Undo restores `new`;
 * `timesSeen` compares and an unknown key is a positioned `invalid_query`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getIssue } from "../../src/storage/issues/issues";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects } from "../helpers/test-db";
import { codeOf, createWorld, type World } from "../lifecycle/helpers";
import { drain, hexId } from "../pipeline/helpers";

/** What @sentry/node 11 really sends for `captureMessage(text, "warning")`: the event item of its envelope. */
async function realSdkMessage(text: string): Promise<Record<string, unknown>> {
  const bodies: string[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;
  try {
    const Sentry = await import("@sentry/node");
    const client = new Sentry.NodeClient({
      dsn: `http://public@127.0.0.1:${port}/1`,
      transport: Sentry.makeNodeTransport,
      stackParser: Sentry.defaultStackParser,
      integrations: [],
      attachStacktrace: true,
    });
    const scope = new Sentry.Scope();
    scope.setClient(client);
    client.init();
    scope.captureMessage(text, "warning");
    await client.flush(10_000);
  } finally {
    receiver.close();
  }
  const envelope = bodies.find((b) => b.includes('"type":"event"'));
  if (!envelope) throw new Error("the SDK sent no event");
  const lines = envelope.split("\n");
  const at = lines.findIndex((l) => l.startsWith('{"type":"event"'));
  return JSON.parse(lines[at + 1] as string) as Record<string, unknown>;
}

let seq = 0;

/** Stores raw event bodies through the real digest at the world's clock. */
async function sendRaw(w: World, ...bodies: Record<string, unknown>[]): Promise<string[]> {
  const ids = bodies.map((b) => (b.event_id as string | undefined) ?? hexId(`truth:${++seq}`));
  await enqueueMany(
    w.db,
    bodies.map((b, i) => ({
      projectId: w.projectId,
      keyId: 1,
      receivedAt: w.clock.now,
      clientIp: null,
      kind: "store",
      body: Buffer.from(JSON.stringify({ ...b, event_id: ids[i], timestamp: w.clock.now / 1000 })),
    })),
  );
  const r = await drain(w.db, w.clock.now);
  if (r.failed > 0) throw new Error(`digest failed for ${r.failed} events`);
  return ids;
}

async function issueOfEvent(w: World, eventId: string): Promise<number> {
  const row = await w.db.kysely.selectFrom("events").select("issue_id").where("event_id", "=", eventId).executeTakeFirstOrThrow();
  return Number(row.issue_id);
}

const CHROME_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

describe.each(await dialects())("screens that tell the truth on %s", (dialect) => {
  let w: World;
  let sdkMessage: Record<string, unknown>;
  beforeAll(async () => {
    w = await createWorld(dialect);
    sdkMessage = await realSdkMessage("Cache warmup took longer than 10s");
  });
  afterAll(async () => w?.close());

  test("a captureMessage with a stack trace is a message issue titled by its text", async () => {
    // The real payload: a typeless synthetic exception carrying the stack, plus `message`.
    const exc = (sdkMessage.exception as { values: Array<Record<string, unknown>> }).values[0];
    expect(exc?.type).toBeUndefined();
    expect(exc?.mechanism).toMatchObject({ synthetic: true });
    const [id] = await sendRaw(w, sdkMessage);
    const issue = await w.services.issues.get(w.owner, "acme", await issueOfEvent(w, id as string));
    expect(issue.title).toBe("Cache warmup took longer than 10s");
    expect(issue.title).not.toMatch(/^Error/);
    expect(issue.level).toBe("warning");
    const stored = await getIssue(w.db, issue.id);
    expect(stored?.type).toBe("default");
  });

  test("browser, os and device contexts and tags from the User-Agent; tag values trimmed", async () => {
    const [mac, phone] = await sendRaw(
      w,
      {
        platform: "javascript",
        exception: { values: [{ type: "TypeError", value: "ua-mac" }] },
        request: { url: "https://shop.example/cart", headers: { "User-Agent": CHROME_MAC } },
        tags: { region: "eu-west-1\n" },
      },
      {
        platform: "javascript",
        exception: { values: [{ type: "TypeError", value: "ua-phone" }] },
        request: { url: "https://shop.example/cart", headers: [["user-agent", IPHONE]] },
        // An SDK-sent os context is kept as sent (Relay fills only missing contexts), trimmed as a tag.
        contexts: { os: { name: "iOS\n", version: "17.4" } },
      },
    );
    const macIssue = await issueOfEvent(w, mac as string);
    const page = await w.services.issueStream.issuePage(w.owner, "acme", macIssue);
    const contexts = ((page.event?.event ?? {}) as { contexts: Record<string, Record<string, unknown>> }).contexts;
    expect(contexts.browser).toMatchObject({ name: "Chrome", version: "124.0.0.0" });
    expect(contexts.os).toMatchObject({ name: "Mac OS", version: "10.15.7" });
    const tags = Object.fromEntries(page.tags.map((t) => [t.key, t.top.map((v) => v.value)]));
    expect(tags.browser).toEqual(["Chrome 124.0.0.0"]);
    expect(tags["browser.name"]).toEqual(["Chrome"]);
    expect(tags.os).toEqual(["Mac OS 10.15.7"]);
    expect(tags.region).toEqual(["eu-west-1"]);

    const phonePage = await w.services.issueStream.issuePage(w.owner, "acme", await issueOfEvent(w, phone as string));
    const phoneContexts = ((phonePage.event?.event ?? {}) as { contexts: Record<string, Record<string, unknown>> }).contexts;
    expect(phoneContexts.device).toMatchObject({ model: "iPhone", brand: "Apple" });
    expect(phoneContexts.browser).toMatchObject({ name: "Mobile Safari" });
    const phoneTags = Object.fromEntries(phonePage.tags.map((t) => [t.key, t.top.map((v) => v.value)]));
    expect(phoneTags.os).toEqual(["iOS 17.4"]);
    expect(phoneTags.device).toEqual(["iPhone"]);
    // Searchable by the derived tags.
    const found = await w.services.issueStream.search(w.owner, "acme", { query: 'browser:"Mobile Safari*"' });
    expect(found.items.map((i) => Number(i.id))).toEqual([Number(phonePage.issue.id)]);
  });

  test("merge keeps the issue named in the dialog; merged ids redirect to it", async () => {
    await w.send({ message: "merge-old" });
    w.clock.now += 1000;
    await w.send({ message: "merge-new" }, { message: "merge-new" });
    const [older, newer] = [await w.issueOf("merge-old"), await w.issueOf("merge-new")];
    expect(await codeOf(w.services.issueActions.merge(w.member, "acme", [older, newer], { primaryId: 424242 }))).toBe("validation_failed");
    // The issue page of the newer issue merges the older one into itself.
    const r = await w.services.issueActions.merge(w.member, "acme", [newer, older], { primaryId: newer });
    expect(r).toEqual({ primaryId: newer, mergedIds: [older] });
    expect(await w.services.issues.get(w.owner, "acme", newer)).toMatchObject({ count: 3 });
    expect(await codeOf(w.services.issues.get(w.owner, "acme", older))).toBe("not_found");
    expect(await w.services.issueRedirects.target(w.owner, "acme", older)).toBe(newer);
    expect(await w.services.issueRedirects.target(w.owner, "acme", 987_654)).toBeNull();
    // A second merge re-points the first redirect: still one hop.
    await w.send({ message: "merge-third" });
    const third = await w.issueOf("merge-third");
    await w.services.issueActions.merge(w.member, "acme", [third, newer], { primaryId: third });
    expect(await w.services.issueRedirects.target(w.owner, "acme", older)).toBe(third);
    expect(await w.services.issueRedirects.target(w.owner, "acme", newer)).toBe(third);
    // Deleting the survivor takes its redirects along.
    await w.services.issueActions.delete(w.admin, "acme", [third]);
    expect(await w.services.issueRedirects.target(w.owner, "acme", older)).toBeNull();
  });

  test("Undo of a resolve restores a new issue as new (not ongoing)", async () => {
    await w.send({ message: "undo-new" });
    const id = await w.issueOf("undo-new");
    expect(await w.services.issues.get(w.owner, "acme", id)).toMatchObject({ status: "unresolved", substatus: "new" });
    await w.services.issueActions.update(w.member, "acme", id, { status: "resolved" });
    await w.services.issueActions.update(w.member, "acme", id, { status: "unresolved", substatus: "new" });
    expect(await w.services.issues.get(w.owner, "acme", id)).toMatchObject({ status: "unresolved", substatus: "new" });
    // A plain unresolve still means "ongoing" (a person reopened it).
    await w.services.issueActions.update(w.member, "acme", id, { status: "resolved" });
    await w.services.issueActions.update(w.member, "acme", id, { status: "unresolved" });
    expect(await w.services.issues.get(w.owner, "acme", id)).toMatchObject({ substatus: "ongoing" });
  });

  test("unmerge by grouping hash: the hash's stored and future events move to a new issue, counts and stats follow", async () => {
    await w.send({ message: "split-a", user: "ann" }, { message: "split-a", user: "bob" });
    w.clock.now += 1000;
    await w.send({ message: "split-b", user: "cid" }, { message: "split-b", user: "cid" }, { message: "split-b" });
    const [a, b] = [await w.issueOf("split-a"), await w.issueOf("split-b")];
    const bHashes = await w.services.issueUnmerge.hashes(w.owner, "acme", b);
    expect(bHashes).toHaveLength(1);
    expect(await codeOf(w.services.issueUnmerge.unmerge(w.member, "acme", b, bHashes[0]?.hash as string))).toBe("validation_failed");
    await w.services.issueActions.merge(w.member, "acme", [a, b], { primaryId: a });
    expect(await w.services.issues.get(w.owner, "acme", a)).toMatchObject({ count: 5, userCount: 3 });
    const hashes = await w.services.issueUnmerge.hashes(w.owner, "acme", a);
    expect(hashes).toHaveLength(2);
    expect(hashes.map((h) => h.hash)).toContain(bHashes[0]?.hash);

    const hash = bHashes[0]?.hash as string;
    expect(await codeOf(w.services.issueUnmerge.unmerge(w.viewer, "acme", a, hash))).toBe("forbidden");
    expect(await codeOf(w.services.issueUnmerge.unmerge(w.member, "acme", a, "0".repeat(32)))).toBe("not_found");
    const r = await w.services.issueUnmerge.unmerge(w.member, "acme", a, hash);
    expect(r.movedEvents).toBe(3);
    const split = await w.services.issues.get(w.owner, "acme", r.newIssueId);
    expect(split).toMatchObject({ count: 3, userCount: 1, title: "LifecycleError: split-b", status: "unresolved" });
    expect(await w.services.issues.get(w.owner, "acme", a)).toMatchObject({ count: 2, title: "LifecycleError: split-a" });
    expect(await w.issueOf("split-b")).toBe(r.newIssueId);
    expect(await w.issueOf("split-a")).toBe(a);
    // Statistics follow the events: hourly counts and tag distributions.
    const hourly = async (id: number) =>
      (await w.db.kysely.selectFrom("issue_hourly").select("count").where("issue_id", "=", id).execute()).reduce(
        (n, h) => n + Number(h.count),
        0,
      );
    expect(await hourly(a)).toBe(2);
    expect(await hourly(r.newIssueId)).toBe(3);
    const page = await w.services.issueStream.issuePage(w.owner, "acme", r.newIssueId);
    expect(page.tags.find((t) => t.key === "level")?.total).toBe(3);
    expect(page.activity.some((x) => x.kind === "unmerge")).toBe(true);
    // Future events of the hash land on the new issue.
    w.clock.now += 1000;
    await w.send({ message: "split-b", user: "dan" });
    expect(await w.services.issues.get(w.owner, "acme", r.newIssueId)).toMatchObject({ count: 4, userCount: 2 });
    expect(await w.services.issues.get(w.owner, "acme", a)).toMatchObject({ count: 2 });
  });

  test("timesSeen / times_seen compare; an unknown key is a positioned invalid_query", async () => {
    await w.send({ message: "seen-once" });
    await w.send({ message: "seen-thrice" }, { message: "seen-thrice" }, { message: "seen-thrice" });
    const [once, thrice] = [await w.issueOf("seen-once"), await w.issueOf("seen-thrice")];
    const ids = async (query: string) =>
      (await w.services.issueStream.search(w.owner, "acme", { query: `${query} seen-`, status: "all" })).items.map((i) => Number(i.id));
    expect(await ids("timesSeen:>2")).toEqual([thrice]);
    expect(await ids("times_seen:>=3")).toEqual([thrice]);
    expect(await ids("timesSeen:<2")).toEqual([once]);
    expect(await ids("timesSeen:<=1")).toEqual([once]);
    expect(await ids("timesSeen:3")).toEqual([thrice]);
    expect(await ids("!timesSeen:3")).toEqual([once]);
    const err = await w.services.issueStream.search(w.owner, "acme", { query: "level:error timesSee:>10" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "invalid_query", position: 12 });
    expect((err as Error).message).toContain('Unknown search key "timesSee"');
    expect(await codeOf(w.services.issueStream.search(w.owner, "acme", { query: "timesSeen:>ten" }))).toBe("invalid_query");
    // A tag these projects have is still a key (the browser event above set `region`).
    expect(await codeOf(w.services.issueStream.search(w.owner, "acme", { query: "region:eu-west-1" }))).toBeUndefined();
  });
});
