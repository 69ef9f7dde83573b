/**
 * Switching a project's grouping version: during the transition period the digest matches issues
 * by the previous version's hashes too and teaches the matched issue the new version's hashes, so
 * nothing splits; after the period only the new version counts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_GROUPING_VERSION } from "../../src/core/grouping/index";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { getEvent } from "../../src/storage/events/events";
import { listIssueHashes } from "../../src/storage/issues/issues";
import { readProjectProcessing, switchGroupingVersion } from "../../src/storage/orgs/project-processing";
import { findProjectById, writeProjectSettings } from "../../src/storage/orgs/projects";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject, drain, hexId } from "./helpers";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

/** A Node error; `handler` names the in-app function that threw (v2 groups on it, v1 does not). */
function nodeError(handler: string): Record<string, unknown> {
  return {
    platform: "node",
    exception: {
      values: [
        {
          type: "TypeError",
          value: "Cannot read properties of undefined (reading 'id')",
          stacktrace: {
            frames: [
              { filename: "/srv/node_modules/express/lib/router/layer.js", function: "Layer.handle", in_app: false },
              { filename: "/srv/src/orders.js", function: handler, in_app: true, context_line: "return order.customer.id;" },
            ],
          },
        },
      ],
    },
  };
}

describe.each(await dialects())("grouping transition on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  let seq = 0;
  async function digest(projectId: number, event: Record<string, unknown>, at: number): Promise<{ id: string; issueId: number }> {
    seq += 1;
    const id = hexId(`transition-${dialect}-${seq}`);
    const body = Buffer.from(JSON.stringify({ ...event, event_id: id, timestamp: at / 1000 }));
    await enqueueMany(db, [{ projectId, keyId: 1, receivedAt: at, clientIp: null, kind: "store", body }]);
    expect(await drain(db, at)).toMatchObject({ events: 1 });
    const stored = await getEvent(db, projectId, id);
    return { id, issueId: stored?.issueId ?? -1 };
  }

  async function projectOnV1(slug: string): Promise<number> {
    const projectId = await createProject(db, slug);
    await db.kysely.updateTable("projects").set({ grouping_version: "v1" }).where("id", "=", projectId).execute();
    return projectId;
  }

  test("new projects get the default version; existing ones keep theirs", async () => {
    const fresh = await createProject(db, "fresh");
    expect((await findProjectById(db, fresh))?.groupingVersion).toBe(DEFAULT_GROUPING_VERSION);
    expect(DEFAULT_GROUPING_VERSION).toBe("v3");
    const old = await projectOnV1("old");
    expect((await findProjectById(db, old))?.groupingVersion).toBe("v1");
  });

  test("within the period: the same error joins the v1 issue, which learns its v2 hashes", async () => {
    const projectId = await projectOnV1("switch");
    const before = await digest(projectId, nodeError("loadOrder"), T0);
    const v1Hashes = await listIssueHashes(db, before.issueId);
    expect(v1Hashes.map((h) => h.groupingVersion)).toEqual(["v1"]);

    expect(await writeTx(db, (tx) => switchGroupingVersion(tx, projectId, "v2", T0 + DAY))).toBe(true);
    expect((await readProjectProcessing(db, [projectId])).get(projectId)).toMatchObject({
      groupingVersion: "v2",
      groupingPrevious: "v1",
      groupingSwitchedAt: T0 + DAY,
    });

    const during = await digest(projectId, nodeError("loadOrder"), T0 + 10 * DAY);
    expect(during.issueId).toBe(before.issueId);
    const hashes = await listIssueHashes(db, before.issueId);
    expect(hashes.filter((h) => h.groupingVersion === "v2")).toHaveLength(2); // app + system
    const stored = await getEvent(db, projectId, during.id);
    expect(stored?.event.errata).toMatchObject({ grouping: { version: "v2", previous: { version: "v1" } } });

    // After the period the v2 hashes the issue learnt keep the error in it…
    const after = await digest(projectId, nodeError("loadOrder"), T0 + 40 * DAY);
    expect(after.issueId).toBe(before.issueId);
    expect((await getEvent(db, projectId, after.id))?.event.errata).not.toHaveProperty("grouping.previous");
  });

  test("within the period v1 still matches; after it only v2 decides", async () => {
    const projectId = await projectOnV1("window");
    const first = await digest(projectId, nodeError("loadOrder"), T0);
    await writeTx(db, (tx) => switchGroupingVersion(tx, projectId, "v2", T0));

    // Same type and value, another in-app function: v1 says "same issue", v2 "different".
    const during = await digest(projectId, nodeError("saveOrder"), T0 + 29 * DAY);
    expect(during.issueId).toBe(first.issueId);

    const after = await digest(projectId, nodeError("cancelOrder"), T0 + 31 * DAY);
    expect(after.issueId).not.toBe(first.issueId);
    expect((await listIssueHashes(db, after.issueId)).every((h) => h.groupingVersion === "v2")).toBe(true);
  });

  test("a new issue created during the period records only the new version's hashes", async () => {
    const projectId = await projectOnV1("newissue");
    await writeTx(db, (tx) => switchGroupingVersion(tx, projectId, "v2", T0));
    const created = await digest(projectId, { message: "Payment 4711 declined" }, T0 + DAY);
    expect((await listIssueHashes(db, created.issueId)).map((h) => h.groupingVersion)).toEqual(["v2"]);
    // v2 parameterises the message: another amount is the same issue.
    expect((await digest(projectId, { message: "Payment 99 declined" }, T0 + 2 * DAY)).issueId).toBe(created.issueId);
  });

  test("switching to the version already in use is a no-op", async () => {
    const projectId = await createProject(db, "noop");
    expect(await writeTx(db, (tx) => switchGroupingVersion(tx, projectId, DEFAULT_GROUPING_VERSION, T0))).toBe(false);
    expect((await readProjectProcessing(db, [projectId])).get(projectId)?.groupingPrevious).toBeNull();
  });
});

/** A Spring error thrown through a CGLIB proxy whose generated suffix changes per JVM run. */
function springError(proxySuffix: string, helper = "Guard"): Record<string, unknown> {
  const f = (module: string, fn: string, inApp: boolean) => ({ module, function: fn, filename: "X.java", lineno: 3, in_app: inApp });
  return {
    platform: "java",
    exception: {
      values: [
        {
          type: "java.lang.IllegalStateException",
          value: "order missing",
          stacktrace: {
            frames: [
              f("java.lang.Thread", "run", false),
              f(`com.shop.OrderService$$EnhancerBySpringCGLIB$$${proxySuffix}`, "place", true),
              f("com.shop.OrderService", "place", true),
              f(`com.shop.util.${helper}`, "check", true),
            ],
          },
        },
      ],
    },
  };
}

describe.each(await dialects())("grouping v3 and project rules in the digest on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  let seq = 0;
  async function digest(projectId: number, event: Record<string, unknown>, at: number): Promise<number> {
    seq += 1;
    const id = hexId(`v3-${dialect}-${seq}`);
    const body = Buffer.from(JSON.stringify({ ...event, event_id: id, timestamp: at / 1000 }));
    await enqueueMany(db, [{ projectId, keyId: 1, receivedAt: at, clientIp: null, kind: "store", body }]);
    expect(await drain(db, at)).toMatchObject({ events: 1 });
    return (await getEvent(db, projectId, id))?.issueId ?? -1;
  }

  test("v2 → v3: the issue keeps its events, and copies v2 split now join it", async () => {
    const projectId = await createProject(db, "to-v3");
    await db.kysely.updateTable("projects").set({ grouping_version: "v2" }).where("id", "=", projectId).execute();
    const first = await digest(projectId, springError("a1b2c3d4"), T0);
    // On v2 another JVM run's proxy name is another issue …
    const split = await digest(projectId, springError("0badf00d"), T0 + 1);
    expect(split).not.toBe(first);
    await writeTx(db, (tx) => switchGroupingVersion(tx, projectId, "v3", T0 + DAY));
    expect(await digest(projectId, springError("a1b2c3d4"), T0 + 2 * DAY)).toBe(first);
    // … on v3 it joins the issue it came from (never the v2 split's).
    expect(await digest(projectId, springError("9f9f9f9f"), T0 + 3 * DAY)).toBe(first);
    // … and after the period v3's hashes alone keep doing so.
    expect(await digest(projectId, springError("77777777"), T0 + 40 * DAY)).toBe(first);
    expect((await listIssueHashes(db, first)).some((h) => h.groupingVersion === "v3")).toBe(true);
  });

  test("a project's stack-trace and fingerprint rules decide new events", async () => {
    const projectId = await createProject(db, "rules");
    // Stack-trace rules apply from v3, which a project opts into (v2 is still the default).
    await db.kysely.updateTable("projects").set({ grouping_version: "v3" }).where("id", "=", projectId).execute();
    const a = await digest(projectId, springError("a1", "GuardA"), T0);
    const b = await digest(projectId, springError("a1", "GuardB"), T0 + 1);
    expect(b).not.toBe(a);
    await writeTx(db, (tx) =>
      writeProjectSettings(tx, projectId, {
        groupingEnhancements: "stack.module:com.shop.util.* -group",
        fingerprintingRules: 'message:"payment *" -> payments',
      }),
    );
    const c = await digest(projectId, springError("a1", "GuardC"), T0 + 2);
    const d = await digest(projectId, springError("a1", "GuardD"), T0 + 3);
    expect(d).toBe(c);
    const stored = await getEvent(db, projectId, hexId(`v3-${dialect}-${seq}`));
    expect(JSON.stringify(stored?.event.errata)).toContain('stack trace rule line 1 \\"stack.module:com.shop.util.* -group\\"');
    const p1 = await digest(projectId, { platform: "python", message: "payment 1 declined for order 9" }, T0 + 4);
    const p2 = await digest(
      projectId,
      { platform: "python", exception: { values: [{ type: "PaymentError", value: "payment gateway down" }] } },
      T0 + 5,
    );
    expect(p2).toBe(p1);
  });
});
