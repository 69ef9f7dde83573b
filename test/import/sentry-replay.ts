/**
 * A recorded replay of Sentry's REST API for the importer's tests: the fields and headers Sentry's
 * documented serializers answer (organization, teams with their projects, project summaries and
 * details with data-scrubbing settings, DSN keys with their secret half and `dsn` object), paginated
 * by `Link` cursors the way Sentry writes them, and one 429 with `Retry-After` first, as sentry.io
 * rate-limits. It also answers an HTML page under `/html/` (a login page, as a wrong base URL gets).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export const REPLAY_TOKEN = "sntrys_replay_token_0123456789";

/** Hex keys as Sentry mints them (uuid4 hex). */
export const IOS_KEY = { public: "5f3b1a2c4d6e8f90a1b2c3d4e5f60718", secret: "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d" };
export const IOS_OLD_KEY = { public: "c0ffee00c0ffee00c0ffee00c0ffee00", secret: "deadbeefdeadbeefdeadbeefdeadbeef" };
export const PAYMENTS_KEY = { public: "8e7d6c5b4a39281706f5e4d3c2b1a098", secret: "1234567890abcdef1234567890abcdef" };

const iso = "2024-03-01T10:00:00.000000Z";

function key(k: { public: string; secret: string }, projectId: number, label: string, isActive: boolean) {
  const host = "o17.ingest.sentry.io";
  return {
    id: k.public,
    name: label,
    label,
    public: k.public,
    secret: k.secret,
    projectId,
    isActive,
    rateLimit: null,
    dsn: {
      secret: `https://${k.public}:${k.secret}@${host}/${projectId}`,
      public: `https://${k.public}@${host}/${projectId}`,
      csp: `https://${host}/api/${projectId}/csp-report/?sentry_key=${k.public}`,
      security: `https://${host}/api/${projectId}/security/?sentry_key=${k.public}`,
      minidump: `https://${host}/api/${projectId}/minidump/?sentry_key=${k.public}`,
      unreal: `https://${host}/api/${projectId}/unreal/${k.public}/`,
      cdn: `https://js.sentry-cdn.com/${k.public}.min.js`,
    },
    browserSdkVersion: "7.x",
    browserSdk: { choices: [["latest", "latest"]] },
    dateCreated: iso,
  };
}

const teamMobile = {
  id: "31",
  slug: "mobile_team",
  name: "Mobile",
  dateCreated: iso,
  isMember: true,
  memberCount: 3,
  avatar: { avatarType: "letter_avatar" },
};
const teamBackend = {
  id: "32",
  slug: "backend",
  name: "Backend",
  dateCreated: iso,
  isMember: false,
  memberCount: 5,
  avatar: { avatarType: "letter_avatar" },
};

const ios = {
  id: "4242",
  slug: "ios-app",
  name: "iOS App",
  platform: "apple-ios",
  dateCreated: iso,
  isBookmarked: false,
  isMember: true,
  features: ["releases"],
  firstEvent: iso,
  hasAccess: true,
  status: "active",
  teams: [{ id: teamMobile.id, slug: teamMobile.slug, name: teamMobile.name }],
};
const payments = {
  id: "4243",
  slug: "payments",
  name: "Payments",
  platform: "python-django",
  dateCreated: iso,
  isBookmarked: false,
  isMember: false,
  features: [],
  firstEvent: null,
  hasAccess: true,
  status: "active",
  teams: [{ id: teamBackend.id, slug: teamBackend.slug, name: teamBackend.name }],
};

/** Sentry's organization member serializer; an open invitation there is `pending` without a user. */
const member = (id: string, email: string, orgRole: string, teams: string[], pending = false) => ({
  id,
  email,
  name: email.split("@")[0],
  role: orgRole,
  orgRole,
  roleName: orgRole,
  pending,
  expired: false,
  flags: { "sso:linked": false },
  dateCreated: iso,
  inviteStatus: pending ? "pending" : "approved",
  inviterName: null,
  teams,
  teamRoles: teams.map((teamSlug) => ({ teamSlug, role: null })),
  user: pending ? null : { id: `u${id}`, email, name: email.split("@")[0], isActive: true, has2fa: false },
});
const members = [
  member("101", "ada@globex.test", "owner", ["mobile_team"]),
  member("102", "bob@globex.test", "billing", [], true),
  member("103", "Carol@Globex.test", "manager", ["backend", "mobile_team"]),
];

export interface Replay {
  url: string;
  /** request paths (with query) in order */
  seen: string[];
  /** times (ms) the teams list was asked for: the first gets the 429 */
  teamsAt: number[];
  /** the next teams request answers 429 once more */
  armRateLimit(): void;
  close(): Promise<void>;
}

export async function startReplay(): Promise<Replay> {
  const seen: string[] = [];
  const teamsAt: number[] = [];
  let limited = false;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://replay");
    seen.push(`${url.pathname}${url.search}`);
    const base = `http://${req.headers.host}`;
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    const link = (path: string, next: string | null) => {
      const prev = `<${base}${path}?&cursor=100:-1:1>; rel="previous"; results="false"; cursor="100:-1:1"`;
      return next
        ? `${prev}, <${base}${path}?&cursor=${next}>; rel="next"; results="true"; cursor="${next}"`
        : `${prev}, <${base}${path}?&cursor=100:1:0>; rel="next"; results="false"; cursor="100:1:0"`;
    };
    if (url.pathname.startsWith("/html/")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><html><head><title>Login | Sentry</title></head><body>Sign in</body></html>");
      return;
    }
    if (req.headers.authorization !== `Bearer ${REPLAY_TOKEN}`) return json(401, { detail: "Invalid token" });
    const p = url.pathname;
    if (p === "/api/0/organizations/globex/") {
      return json(200, {
        id: "17",
        slug: "globex",
        name: "Globex Corp",
        dateCreated: iso,
        status: { id: "active", name: "active" },
        isEarlyAdopter: false,
        require2FA: false,
        avatar: { avatarType: "letter_avatar" },
        features: [],
      });
    }
    if (p === "/api/0/organizations/globex/teams/") {
      teamsAt.push(Date.now());
      if (!limited) {
        limited = true;
        return json(
          429,
          { detail: "You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds" },
          { "retry-after": "1" },
        );
      }
      return json(
        200,
        [
          { ...teamMobile, projects: [{ id: ios.id, slug: ios.slug, name: ios.name, platform: ios.platform }] },
          { ...teamBackend, projects: [] },
        ],
        { link: link(p, null) },
      );
    }
    if (p === "/api/0/organizations/globex/members/") {
      return json(200, members, { link: link(p, null) });
    }
    if (p === "/api/0/organizations/globex/projects/") {
      if (url.searchParams.get("cursor") === "100:1:0") return json(200, [payments], { link: link(p, null) });
      return json(200, [ios], { link: link(p, "100:1:0") });
    }
    if (p === "/api/0/projects/globex/ios-app/") {
      return json(200, {
        ...ios,
        dataScrubber: true,
        dataScrubberDefaults: true,
        scrubIPAddresses: true,
        sensitiveFields: ["card_number"],
        safeFields: ["order_id"],
        resolveAge: 0,
        subjectPrefix: "",
      });
    }
    if (p === "/api/0/projects/globex/payments/") {
      return json(200, {
        ...payments,
        dataScrubber: false,
        dataScrubberDefaults: false,
        scrubIPAddresses: false,
        sensitiveFields: [],
        safeFields: [],
      });
    }
    if (p === "/api/0/projects/globex/ios-app/keys/") {
      if (url.searchParams.get("cursor") === "100:1:0")
        return json(200, [key(IOS_OLD_KEY, 4242, "Old builds", false)], { link: link(p, null) });
      return json(200, [key(IOS_KEY, 4242, "Default", true)], { link: link(p, "100:1:0") });
    }
    if (p === "/api/0/projects/globex/payments/keys/")
      return json(200, [key(PAYMENTS_KEY, 4243, "Default", true)], { link: link(p, null) });
    json(404, { detail: "The requested resource does not exist" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    teamsAt,
    armRateLimit: () => {
      limited = false;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
