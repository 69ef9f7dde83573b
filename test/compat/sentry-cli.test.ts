/**
 * Sentry's own tools work unchanged (issue 10): the real `sentry-cli` 3.8 binary runs every command
 * release automation uses (getsentry/action-release, the bundler plugins, GitLab templates) against
 * the built server on both databases, and each row asserts the command's effect through the REST
 * API. The table is the reference: a command added later gets a row.
 *
 * What each command sends was recorded from the binary (test/compat/fixtures/sentry-cli-requests.md).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const execFileP = promisify(execFile);
const SENTRY_CLI = path.join(ROOT, "node_modules", ".bin", "sentry-cli");

type Json = Record<string, unknown>;

interface Ctx {
  server: TestServer;
  /** the project this row's commands act on (SENTRY_PROJECT), created for the row */
  project: string;
  dsn: string;
  /** GET (or another method) on the REST API with the all-scopes token; JSON body and status */
  api(pathname: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: unknown; headers: Headers }>;
  /** sends an error event through the DSN and waits until its issue exists; returns the issue */
  issue(message: string): Promise<Json>;
  /** a git checkout with two commits, for set-commits; returns its path and HEAD */
  gitRepo(): Promise<{ dir: string; head: string; commits: string[] }>;
}

interface Row {
  /** the row needs a project of its own (the CLI's --all and --status act on the whole project) */
  ownProject?: boolean;
  /** the command as a user types it after `sentry-cli` ({v}: a release version unique to the row) */
  command: string;
  /** state the command needs (created through the API or the CLI), returns values for the command */
  setup?: (ctx: Ctx, v: string) => Promise<{ args?: Record<string, string>; cwd?: string } | undefined>;
  /** the effect, read back through the API */
  verify: (ctx: Ctx, v: string, out: { stdout: string; vars: Record<string, string> }) => Promise<void>;
}

const release = async (ctx: Ctx, v: string) => (await ctx.api(`/api/0/organizations/acme/releases/${encodeURIComponent(v)}/`)).body as Json;
const createRelease = async (ctx: Ctx, v: string) => {
  const res = await ctx.api("/api/0/organizations/acme/releases/", { method: "POST", body: { version: v, projects: [ctx.project] } });
  expect(res.status).toBe(201);
};
const issueStatus = async (ctx: Ctx, id: string) => ((await ctx.api(`/api/0/organizations/acme/issues/${id}/`)).body as Json).status;

const ROWS: Row[] = [
  {
    command: "info",
    verify: async (_ctx, _v, { stdout }) => {
      expect(stdout).toContain("Method: Auth Token");
      expect(stdout).toContain("dev@example.com");
    },
  },
  {
    // Needs the organization's dateCreated (its table prints it).
    command: "organizations list",
    verify: async (ctx, _v, { stdout }) => {
      const today = new Date().toISOString().slice(0, 10);
      expect(stdout).toMatch(new RegExp(`\\| \\d+ +\\| acme +\\| acme +\\| ${today} +\\| false +\\| false +\\|`));
      const { body } = await ctx.api("/api/0/organizations/");
      expect(body).toEqual([expect.objectContaining({ slug: "acme", dateCreated: expect.stringMatching(/^\d{4}-/) })]);
    },
  },
  {
    command: "events list",
    setup: async (ctx, v) => {
      await ctx.issue(`events list ${v}`);
      return undefined;
    },
    verify: async (_ctx, v, { stdout }) => {
      expect(stdout).toContain(`events list ${v}`);
    },
  },
  {
    // No repository integrations: an empty list, as a sentence.
    command: "repos list",
    verify: async (_ctx, _v, { stdout }) => {
      expect(stdout).toContain("No repos found");
    },
  },
  {
    command: "projects list",
    verify: async (ctx, _v, { stdout }) => {
      expect(stdout).toContain(ctx.project);
      const { body } = await ctx.api("/api/0/organizations/acme/projects/");
      expect(body).toEqual(expect.arrayContaining([expect.objectContaining({ slug: ctx.project, platform: "javascript" })]));
    },
  },
  {
    command: "releases new {v}",
    verify: async (ctx, v) => {
      const r = await release(ctx, v);
      expect(r).toMatchObject({ version: v, dateReleased: null, status: "open", commitCount: 0, deployCount: 0 });
      expect(r.projects).toEqual([expect.objectContaining({ slug: ctx.project })]);
      // sentry-cli sends dateStarted: kept.
      expect(Date.parse(r.dateStarted as string)).toBeGreaterThan(0);
    },
  },
  {
    command: "releases list",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      return undefined;
    },
    verify: async (ctx, v, { stdout }) => {
      expect(stdout).toContain(v);
      const { body, headers } = await ctx.api(`/api/0/projects/acme/${ctx.project}/releases/?query=${encodeURIComponent(v.slice(-6))}`);
      expect((body as Json[]).map((r) => r.version)).toEqual([v]);
      expect(headers.get("link")).toContain('rel="next"; results="false"');
    },
  },
  {
    command: "releases info {v}",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      return undefined;
    },
    verify: async (_ctx, v, { stdout }) => {
      expect(stdout).toContain(v);
    },
  },
  {
    command: "releases finalize {v}",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      return undefined;
    },
    verify: async (ctx, v) => {
      const r = await release(ctx, v);
      expect(Date.parse(r.dateReleased as string)).toBeGreaterThan(Date.now() - 600_000);
    },
  },
  {
    // No repository integration in Errata: sentry-cli reads the local git tree and sends the commits.
    command: "releases set-commits {v} --auto",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      const repo = await ctx.gitRepo();
      return { cwd: repo.dir, args: { head: repo.head, count: String(repo.commits.length) } };
    },
    verify: async (ctx, v, { vars }) => {
      const r = await release(ctx, v);
      expect(r.commitCount).toBe(Number(vars.count));
      expect(r.lastCommit).toMatchObject({
        id: vars.head,
        message: expect.stringContaining("second"),
        author: { email: "dev@example.com" },
      });
      expect(r.authors).toEqual([{ name: "Dev", email: "dev@example.com" }]);
      const commits = (await ctx.api(`/api/0/organizations/acme/releases/${v}/commits/`)).body as Json[];
      expect(commits.map((c) => c.id)[0]).toBe(vars.head);
    },
  },
  {
    // --ignore-missing: the previous release's commits come from another checkout.
    command: "releases set-commits {v} --commit acme/web@{head} --ignore-missing",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      const repo = await ctx.gitRepo();
      return { cwd: repo.dir, args: { head: repo.head } };
    },
    verify: async (ctx, v, { vars }) => {
      const r = await release(ctx, v);
      expect(r.commitCount).toBeGreaterThan(0);
      expect((r.lastCommit as Json).id).toBe(vars.head);
    },
  },
  {
    command: "releases delete {v}",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      return undefined;
    },
    verify: async (ctx, v) => {
      const res = await ctx.api(`/api/0/organizations/acme/releases/${v}/`);
      expect(res.status).toBe(404);
      expect((res.body as { error: { code: string } }).error.code).toBe("not_found");
    },
  },
  {
    command: "deploys new -r {v} -e production -n blue",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      return undefined;
    },
    verify: async (ctx, v) => {
      const deploys = (await ctx.api(`/api/0/organizations/acme/releases/${v}/deploys/`)).body as Json[];
      expect(deploys).toEqual([expect.objectContaining({ environment: "production", name: "blue" })]);
      const r = await release(ctx, v);
      expect(r).toMatchObject({ deployCount: 1, lastDeploy: { environment: "production", name: "blue" } });
    },
  },
  {
    command: "deploys list -r {v}",
    setup: async (ctx, v) => {
      await createRelease(ctx, v);
      const res = await ctx.api(`/api/0/organizations/acme/releases/${v}/deploys/`, { method: "POST", body: { environment: "staging" } });
      expect(res.status).toBe(201);
      return undefined;
    },
    verify: async (_ctx, _v, { stdout }) => {
      expect(stdout).toContain("staging");
    },
  },
  {
    command: "send-event -m {v}",
    verify: async (ctx, v) => {
      const issues = await eventually(async () => {
        const list = (await ctx.api(`/api/0/projects/acme/${ctx.project}/issues/?query=${encodeURIComponent(v)}`)).body as Json[];
        return list.length > 0 ? list : undefined;
      }, 30_000);
      expect(issues[0]?.title).toContain(v);
    },
  },
  {
    command: "issues list",
    setup: async (ctx, v) => {
      const issue = await ctx.issue(`listed ${v}`);
      return { args: { shortId: issue.shortId as string } };
    },
    verify: async (_ctx, _v, { stdout, vars }) => {
      expect(stdout).toContain(vars.shortId);
    },
  },
  {
    command: "issues resolve -i {id}",
    setup: async (ctx, v) => ({ args: { id: (await ctx.issue(`resolve one ${v}`)).id as string } }),
    verify: async (ctx, _v, { vars }) => expect(await issueStatus(ctx, vars.id as string)).toBe("resolved"),
  },
  {
    command: "issues unresolve -i {id}",
    setup: async (ctx, v) => {
      const id = (await ctx.issue(`unresolve one ${v}`)).id as string;
      await ctx.api(`/api/0/organizations/acme/issues/${id}/`, { method: "PUT", body: { status: "resolved" } });
      return { args: { id } };
    },
    verify: async (ctx, _v, { vars }) => expect(await issueStatus(ctx, vars.id as string)).toBe("unresolved"),
  },
  {
    command: "issues mute -i {id}",
    setup: async (ctx, v) => ({ args: { id: (await ctx.issue(`mute one ${v}`)).id as string } }),
    verify: async (ctx, _v, { vars }) => expect(await issueStatus(ctx, vars.id as string)).toBe("ignored"),
  },
  {
    command: "issues resolve --all",
    ownProject: true,
    setup: async (ctx, v) => {
      const a = (await ctx.issue(`all a ${v}`)).id as string;
      const b = (await ctx.issue(`all b ${v}`)).id as string;
      return { args: { a, b } };
    },
    verify: async (ctx, _v, { vars }) => {
      expect(await issueStatus(ctx, vars.a as string)).toBe("resolved");
      expect(await issueStatus(ctx, vars.b as string)).toBe("resolved");
    },
  },
  {
    command: "issues mute --all",
    ownProject: true,
    setup: async (ctx, v) => {
      const a = (await ctx.issue(`mute all a ${v}`)).id as string;
      const resolved = (await ctx.issue(`mute all resolved ${v}`)).id as string;
      await ctx.api(`/api/0/organizations/acme/issues/${resolved}/`, { method: "PUT", body: { status: "resolved" } });
      return { args: { a, resolved } };
    },
    verify: async (ctx, _v, { vars }) => {
      expect(await issueStatus(ctx, vars.a as string)).toBe("ignored");
      // Sentry's default selection is the unresolved issues.
      expect(await issueStatus(ctx, vars.resolved as string)).toBe("resolved");
    },
  },
  {
    command: "issues unresolve --status muted",
    ownProject: true,
    setup: async (ctx, v) => {
      const muted = (await ctx.issue(`unmute ${v}`)).id as string;
      await ctx.api(`/api/0/organizations/acme/issues/${muted}/`, { method: "PUT", body: { status: "ignored" } });
      const resolved = (await ctx.issue(`stays resolved ${v}`)).id as string;
      await ctx.api(`/api/0/organizations/acme/issues/${resolved}/`, { method: "PUT", body: { status: "resolved" } });
      return { args: { muted, resolved } };
    },
    verify: async (ctx, _v, { vars }) => {
      expect(await issueStatus(ctx, vars.muted as string)).toBe("unresolved");
      expect(await issueStatus(ctx, vars.resolved as string)).toBe("resolved");
    },
  },
];

/** An error event through the DSN, as an SDK sends it (envelope endpoint). */
async function sendEvent(dsn: string, message: string): Promise<void> {
  const u = new URL(dsn);
  const projectId = u.pathname.replace(/^\//, "");
  const eventId = crypto.randomUUID().replace(/-/g, "");
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: "node",
    level: "error",
    // one issue per message (the same stack would otherwise group them)
    fingerprint: [message],
    exception: {
      values: [
        { type: "Error", value: message, stacktrace: { frames: [{ function: "run", filename: "app.js", lineno: 1, in_app: true }] } },
      ],
    },
  };
  const res = await fetch(`${u.protocol}//${u.host}/api/${projectId}/envelope/`, {
    method: "POST",
    headers: { "content-type": "application/x-sentry-envelope", "x-sentry-auth": `Sentry sentry_key=${u.username}, sentry_version=7` },
    body: `${JSON.stringify({ event_id: eventId })}\n{"type":"event"}\n${JSON.stringify(event)}`,
  });
  expect(res.status).toBe(200);
}

describe.each(await dialects())("sentry-cli 3.8 against Errata on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let webDsn: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "errata-compat-"));

  beforeAll(async () => {
    server = await startServer({ dialect });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    webDsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    token = await server.cli(
      "token",
      "create",
      "--email",
      "dev@example.com",
      "--scopes",
      "org:read,project:read,project:write,project:releases,event:read,event:write,member:read",
    );
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function api(pathname: string, init: { method?: string; body?: unknown } = {}) {
    const res = await fetch(`${server.url}${pathname}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, headers: res.headers };
  }

  async function git(dir: string, ...args: string[]) {
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
    };
    return (await execFileP("git", args, { cwd: dir, env })).stdout.trim();
  }

  function ctxFor(project: string, dsn: string): Ctx {
    return {
      server,
      project,
      dsn,
      api,
      async issue(message) {
        await sendEvent(dsn, message);
        return eventually(
          async () => {
            const list = (await api(`/api/0/projects/acme/${project}/issues/?query=${encodeURIComponent(`"${message}"`)}`)).body as Json[];
            return list.find((i) => String(i.title).includes(message));
          },
          30_000,
          `issue "${message}"`,
        );
      },
      async gitRepo() {
        const dir = fs.mkdtempSync(path.join(tmp, "repo-"));
        await git(dir, "init", "-q", "-b", "main");
        await git(dir, "remote", "add", "origin", "https://github.com/acme/web.git");
        // Unique per repo: two repos made within the same second would otherwise have identical
        // commits, and the previous release's last commit would then be found in the new one.
        await git(dir, "commit", "-q", "--allow-empty", "-m", `first (${path.basename(dir)})`);
        await git(dir, "commit", "-q", "--allow-empty", "-m", "second");
        const commits = (await git(dir, "log", "--format=%H")).split("\n");
        return { dir, head: commits[0] as string, commits };
      },
    };
  }

  test.each(ROWS.map((r, i) => [r.command, i] as const))("sentry-cli %s", async (_command, i) => {
    const row = ROWS[i] as Row;
    let project = "web";
    let dsn = webDsn;
    if (row.ownProject) {
      project = `p${i}-${row.command
        .split(" ")
        .slice(0, 2)
        .join("-")
        .replace(/[^a-z-]/g, "")}`.slice(0, 40);
      dsn = await server.cli("project", "create", "--org", "acme", "--name", project, "--platform", "javascript");
    }
    const ctx = ctxFor(project, dsn);
    const v = `compat-${i}-${dialect}@1.0.${i}`;
    const prepared = (await row.setup?.(ctx, v)) ?? {};
    const vars: Record<string, string> = { v, ...prepared.args };
    const args = row.command.split(" ").map((part) => part.replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? ""));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: tmp,
      SENTRY_URL: server.url,
      SENTRY_AUTH_TOKEN: token,
      SENTRY_ORG: "acme",
      SENTRY_PROJECT: project,
      SENTRY_DSN: dsn,
      SENTRYCLI_SKIP_DOWNLOAD: "1",
      SENTRY_LOG_LEVEL: "warn",
    };
    const { stdout } = await execFileP(SENTRY_CLI, args, { cwd: prepared.cwd ?? tmp, timeout: 60_000, env: env as NodeJS.ProcessEnv });
    await row.verify(ctx, v, { stdout, vars });
  });
});
