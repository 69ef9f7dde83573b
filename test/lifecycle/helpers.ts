/**
 * Services over a fresh database with a controllable clock, an org with owner/member/viewer/admin
 * users, one project, and a way to push events through the real digest.
 */
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import type { TriageHooks } from "../../src/storage/issues/triage-runs";
import { findOrgBySlug, upsertMember } from "../../src/storage/orgs/orgs";
import { enqueueMany } from "../../src/storage/queue/queue";
import { openTestDb } from "../helpers/test-db";
import { drain, hexId } from "../pipeline/helpers";

export const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
export const MINUTE = 60_000;
export const DAY = 24 * 3600 * 1000;

export interface EventSpec {
  /** exception value: same message → same issue */
  message: string;
  release?: string;
  user?: string;
}

export interface World {
  db: Db;
  /** PostgreSQL: the database's URL (for a second session); undefined on SQLite */
  databaseUrl?: string;
  services: ReturnType<typeof createServices>;
  clock: { now: number };
  projectId: number;
  owner: Viewer;
  member: Viewer;
  admin: Viewer;
  viewer: Viewer;
  /** stores these events (received at the clock's time) through the digest */
  send(...events: EventSpec[]): Promise<void>;
  /** the issue the message's events land on */
  issueOf(message: string): Promise<number>;
  close(): Promise<void>;
}

let seq = 0;

/** `env`: more configuration (e.g. SMTP_HOST: the project then gets the default email alert channel). */
export async function createWorld(
  dialect: "sqlite" | "postgres",
  env: Record<string, string> = {},
  opts: { triageHooks?: TriageHooks } = {},
): Promise<World> {
  const t = await openTestDb(dialect);
  const config = loadConfig({ PUBLIC_URL: "http://127.0.0.1:9999", DATA_DIR: t.info.dataDir, ...env });
  const secret = "test-secret-test-secret-test-secret";
  const auth = createAuth(t.db, config, secret);
  await migrateAuth(t.db, config, secret);
  const clock = { now: T0 };
  const services = createServices({
    db: t.db,
    auth,
    config,
    log: createLogger("silent"),
    now: () => clock.now,
    triageHooks: opts.triageHooks,
  });
  const users: Record<string, Viewer> = {};
  for (const role of ["owner", "member", "admin", "viewer"] as const) {
    const email = `${role}@example.com`;
    const r = await services.operator.createOwner({ email, password: "a sturdy passphrase", orgSlug: "acme", name: role });
    users[role] = { userId: r.userId, email, name: role };
  }
  const org = await findOrgBySlug(t.db, "acme");
  await writeTx(t.db, async (tx) => {
    for (const role of ["member", "admin", "viewer"] as const) {
      await upsertMember(tx, { orgId: org?.id ?? 0, userId: users[role]?.userId ?? "", role, now: T0 });
    }
  });
  const { project } = await services.operator.createProject({ orgSlug: "acme", name: "web", platform: "javascript" });
  const world: World = {
    db: t.db,
    databaseUrl: t.info.databaseUrl,
    services,
    clock,
    projectId: project.id,
    owner: users.owner as Viewer,
    member: users.member as Viewer,
    admin: users.admin as Viewer,
    viewer: users.viewer as Viewer,
    async send(...events) {
      await enqueueMany(
        t.db,
        events.map((e) => {
          seq += 1;
          const body = {
            event_id: hexId(`lifecycle:${seq}:${e.message}`),
            platform: "javascript",
            level: "error",
            timestamp: clock.now / 1000,
            exception: { values: [{ type: "LifecycleError", value: e.message }] },
            ...(e.release ? { release: e.release } : {}),
            ...(e.user ? { user: { id: e.user } } : {}),
          };
          return {
            projectId: project.id,
            keyId: 1,
            receivedAt: clock.now,
            clientIp: null,
            kind: "store",
            body: Buffer.from(JSON.stringify(body)),
          };
        }),
      );
      const r = await drain(t.db, clock.now);
      if (r.failed > 0) throw new Error(`digest failed for ${r.failed} events`);
    },
    async issueOf(message) {
      const rows = await t.db.kysely
        .selectFrom("events")
        .select(["issue_id", "payload"])
        .where("project_id", "=", project.id)
        .where("title", "like", `%${message}`)
        .execute();
      const ids = [...new Set(rows.map((r) => Number(r.issue_id)))];
      if (ids.length !== 1) throw new Error(`expected one issue for "${message}", found ${ids.length}`);
      return ids[0] as number;
    },
    close: t.close,
  };
  return world;
}

/** The code of the AppError a promise rejects with (undefined when it resolves). */
export async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}
