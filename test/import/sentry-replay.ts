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

const C = "sentry.rules.conditions.";
const F = "sentry.rules.filters.";
const ruleBase = {
  actionMatch: "any",
  filterMatch: "all",
  frequency: 30,
  environment: null,
  status: "active",
  owner: null,
  createdBy: null,
  projects: ["ios-app"],
  snooze: false,
  dateCreated: iso,
};

/** Sentry's issue alert rules (ProjectRulesEndpoint): two that move, two that cannot. */
export const IOS_RULES = [
  {
    ...ruleBase,
    id: "901",
    name: "New or regressed crash on iPhone in production",
    environment: "production",
    frequency: 60,
    conditions: [
      { id: `${C}first_seen_event.FirstSeenEventCondition`, name: "A new issue is created" },
      { id: `${C}regression_event.RegressionEventCondition`, name: "The issue changes state from resolved to unresolved" },
    ],
    filters: [
      {
        id: `${F}tagged_event.TaggedEventFilter`,
        key: "device",
        match: "eq",
        value: "iPhone",
        name: "The event's tags match device equals iPhone",
      },
      { id: `${F}level.LevelFilter`, match: "gte", level: "40", name: "The event's level is greater than or equal to error" },
    ],
    actions: [
      {
        id: "sentry.mail.actions.NotifyEmailAction",
        targetType: "IssueOwners",
        targetIdentifier: "",
        fallthroughType: "ActiveMembers",
        uuid: "a1",
      },
      {
        id: "sentry.integrations.slack.notify_action.SlackNotifyServiceAction",
        workspace: "77",
        channel: "#ios-alerts",
        channel_id: "C01",
        uuid: "a2",
      },
      { id: "sentry.rules.actions.notify_event_service.NotifyEventServiceAction", service: "webhooks", uuid: "a3" },
    ],
  },
  {
    ...ruleBase,
    id: "902",
    name: "Spike",
    conditions: [
      { id: `${C}event_frequency.EventFrequencyCondition`, value: 100, interval: "1h", comparisonType: "count" },
      { id: `${C}event_frequency.EventUniqueUserFrequencyCondition`, value: 20, interval: "1h", comparisonType: "count" },
    ],
    filters: [],
    actions: [
      { id: "sentry.mail.actions.NotifyEmailAction", targetType: "Member", targetIdentifier: "u101", uuid: "b1" },
      { id: "sentry.mail.actions.NotifyEmailAction", targetType: "Team", targetIdentifier: "32", uuid: "b2" },
      // written before Sentry had per-action fallthrough (23.1): the project's ownership switch decides
      { id: "sentry.mail.actions.NotifyEmailAction", targetType: "IssueOwners", targetIdentifier: "", uuid: "b3" },
    ],
  },
  {
    ...ruleBase,
    id: "903",
    name: "Send a notification for high priority issues",
    conditions: [
      { id: `${C}high_priority_issue.NewHighPriorityIssueCondition` },
      { id: `${C}high_priority_issue.ExistingHighPriorityIssueCondition` },
    ],
    filters: [],
    actions: [
      { id: "sentry.mail.actions.NotifyEmailAction", targetType: "IssueOwners", targetIdentifier: "", fallthroughType: "ActiveMembers" },
    ],
  },
  {
    ...ruleBase,
    id: "904",
    name: "Latest release only",
    conditions: [{ id: `${C}first_seen_event.FirstSeenEventCondition` }],
    filters: [{ id: `${F}latest_release.LatestReleaseFilter` }],
    actions: [],
  },
];

const release = (version: string, projects: Array<{ slug: string }>, dateCreated: string, more: Record<string, unknown> = {}) => ({
  id: version.length,
  version,
  shortVersion: version,
  status: "open",
  ref: null,
  url: null,
  dateCreated,
  dateReleased: null,
  dateStarted: null,
  data: {},
  newGroups: 0,
  owner: null,
  commitCount: 0,
  lastCommit: null,
  deployCount: 0,
  lastDeploy: null,
  authors: [],
  projects: projects.map((p) => ({ ...p, name: p.slug, newGroups: 0, platform: null, platforms: [], hasHealthData: false })),
  versionInfo: { package: null, version: { raw: version }, description: version, buildHash: null },
  ...more,
});
export const RELEASES = [
  release("ios@2.0.0", [{ slug: "ios-app" }], "2024-03-05T09:00:00.000000Z", {
    ref: "v2.0.0",
    url: "https://apps.globex.test/ios/2.0.0",
    dateReleased: "2024-03-05T12:00:00.000000Z",
  }),
  release("payments@1.4.0", [{ slug: "payments" }], "2024-03-04T09:00:00.000000Z"),
];
export const IOS_DEPLOYS = [
  {
    id: "61",
    environment: "production",
    name: "ios 2.0.0 to the App Store",
    url: null,
    dateStarted: "2024-03-05T11:00:00Z",
    dateFinished: "2024-03-05T12:00:00Z",
  },
  { id: "60", environment: "staging", name: null, url: null, dateStarted: null, dateFinished: "2024-03-05T10:00:00Z" },
];
export const IOS_COMMITS = [
  {
    id: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    message: "Fix the crash on launch",
    dateCreated: "2024-03-05T08:00:00Z",
    suspectCommitType: "",
    repository: {
      id: "5",
      name: "globex/ios",
      url: "https://github.com/globex/ios",
      provider: { id: "integrations:github", name: "GitHub" },
      status: "active",
    },
    author: { id: "u101", name: "Ada", email: "ada@globex.test" },
    releases: [],
  },
  {
    id: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
    message: "Bump version",
    dateCreated: "2024-03-04T17:00:00Z",
    repository: { id: "5", name: "globex/ios" },
    author: { name: "Carol", email: "carol@globex.test" },
  },
];

const DAY = 86_400_000;
/** One "now" for the whole replay: every run reads the same issue and event times. */
const NOW = Date.now();
const isoAgo = (ms: number) => new Date(NOW - ms).toISOString().replace("Z", "000Z");

/** Sentry's issue list rows for ios-app: one seen 2 days ago (resolved, a team's), one 60 days ago (outside --since 30d). */
export function iosIssues() {
  const base = {
    type: "error",
    platform: "cocoa",
    project: { id: "4242", slug: "ios-app", name: "iOS App" },
    numComments: 0,
    isBookmarked: false,
    hasSeen: true,
    annotations: [],
    stats: {},
  };
  return [
    {
      ...base,
      id: "5001",
      shortId: "IOS-APP-1A",
      title: "TypeError: undefined is not an object",
      culprit: "AppDelegate in didFinishLaunching",
      level: "error",
      status: "resolved",
      substatus: null,
      statusDetails: {},
      firstSeen: isoAgo(20 * DAY),
      lastSeen: isoAgo(2 * DAY),
      count: "1234",
      userCount: 56,
      assignedTo: { type: "team", id: "31", name: "mobile_team" },
      metadata: { type: "TypeError", value: "undefined is not an object", filename: "AppDelegate.swift", function: "didFinishLaunching" },
    },
    {
      ...base,
      id: "5000",
      shortId: "IOS-APP-3",
      title: "Old crash",
      culprit: "",
      level: "fatal",
      status: "unresolved",
      substatus: "ongoing",
      firstSeen: isoAgo(90 * DAY),
      lastSeen: isoAgo(60 * DAY),
      count: "3",
      userCount: 1,
      assignedTo: null,
      metadata: {},
    },
  ];
}

export const IOS_EVENT_IDS = ["e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1", "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0"];

/** Sentry's event serializer (`?full=true`): entries, tags as a list, camelCase frames, the release an object. */
function iosEvent(eventId: string, agoMs: number) {
  return {
    id: eventId,
    eventID: eventId,
    groupID: "5001",
    projectID: "4242",
    dateCreated: isoAgo(agoMs),
    dateReceived: isoAgo(agoMs - 1000),
    platform: "cocoa",
    message: "",
    title: "TypeError: undefined is not an object",
    culprit: "AppDelegate in didFinishLaunching",
    type: "error",
    size: 4096,
    tags: [
      { key: "device", value: "iPhone" },
      { key: "environment", value: "production" },
      { key: "level", value: "error" },
      { key: "release", value: "ios@2.0.0" },
      { key: "screen", value: "checkout" },
    ],
    entries: [
      {
        type: "exception",
        data: {
          values: [
            {
              type: "TypeError",
              value: "undefined is not an object",
              module: null,
              mechanism: { type: "generic", handled: false },
              stacktrace: {
                frames: [
                  {
                    filename: "AppDelegate.swift",
                    absPath: "/src/AppDelegate.swift",
                    function: "didFinishLaunching",
                    lineNo: 42,
                    colNo: null,
                    inApp: true,
                    context: [
                      [41, "  let x = y"],
                      [42, "  x!.run()"],
                      [43, "}"],
                    ],
                    vars: null,
                  },
                ],
                framesOmitted: null,
                hasSystemFrames: false,
              },
            },
          ],
          excOmitted: null,
          hasSystemFrames: false,
        },
      },
      {
        type: "breadcrumbs",
        data: {
          values: [{ type: "navigation", category: "ui", message: "opened checkout", timestamp: isoAgo(agoMs + 5000), level: "info" }],
        },
      },
    ],
    contexts: { os: { name: "iOS", version: "17.2", type: "os" } },
    user: { id: "u-1", email: "pat@example.com", ip_address: null },
    sdk: { name: "sentry.cocoa", version: "8.20.0" },
    release: { version: "ios@2.0.0", dateCreated: iso },
    errors: [],
    fingerprints: ["c5d6b9f0e1a2b3c4d5e6f708192a3b4c"],
  };
}

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
        fingerprintingRules: "error.type:TypeError -> type-error\n",
        groupingEnhancements: "path:**/Pods/** -app",
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
        fingerprintingRules: "this is not a rule",
        groupingEnhancements: "",
      });
    }
    if (p === "/api/0/projects/globex/ios-app/keys/") {
      if (url.searchParams.get("cursor") === "100:1:0")
        return json(200, [key(IOS_OLD_KEY, 4242, "Old builds", false)], { link: link(p, null) });
      return json(200, [key(IOS_KEY, 4242, "Default", true)], { link: link(p, "100:1:0") });
    }
    if (p === "/api/0/projects/globex/ios-app/rules/") return json(200, IOS_RULES);
    if (p === "/api/0/projects/globex/payments/rules/") return json(200, []);
    // Sentry's ProjectOwnership serializer: a team's rule moves; a person who is only invited here waits.
    if (p === "/api/0/projects/globex/ios-app/ownership/") {
      return json(200, {
        raw: "path:src/ios/* #mobile_team\n",
        fallthrough: false,
        dateCreated: iso,
        lastUpdated: iso,
        isActive: true,
        autoAssignment: "Auto Assign to Suspect Commits",
        codeownersAutoSync: true,
      });
    }
    if (p === "/api/0/projects/globex/payments/ownership/") {
      return json(200, {
        raw: "path:billing/* carol@globex.test",
        fallthrough: true,
        isActive: true,
        autoAssignment: "Auto Assign to Issue Owner",
        codeownersAutoSync: true,
      });
    }
    if (p === "/api/0/projects/globex/ios-app/issues/") {
      if (url.searchParams.get("query") !== "") return json(400, { detail: "the importer asks for every status" });
      return json(200, iosIssues(), { link: link(p, null) });
    }
    if (p === "/api/0/projects/globex/payments/issues/") return json(200, [], { link: link(p, null) });
    if (p === "/api/0/organizations/globex/issues/5001/events/") {
      return json(200, [iosEvent(IOS_EVENT_IDS[0], 2 * DAY), iosEvent(IOS_EVENT_IDS[1], 3 * DAY)], { link: link(p, null) });
    }
    if (p === "/api/0/organizations/globex/issues/5001/hashes/") {
      return json(200, [{ id: "c5d6b9f0e1a2b3c4d5e6f708192a3b4c", latestEvent: null, mergedBySeer: false }], { link: link(p, null) });
    }
    if (p === "/api/0/projects/globex/ios-app/plugins/webhooks/") {
      return json(200, {
        id: "webhooks",
        name: "WebHooks",
        slug: "webhooks",
        enabled: true,
        config: [{ name: "urls", label: "Callback URLs", type: "textarea", value: "https://hooks.globex.test/sentry\n" }],
      });
    }
    if (p === "/api/0/organizations/globex/releases/") {
      if (url.searchParams.get("cursor") === "100:1:0") return json(200, [RELEASES[1]], { link: link(p, null) });
      return json(200, [RELEASES[0]], { link: link(p, "100:1:0") });
    }
    if (p === "/api/0/organizations/globex/releases/ios%402.0.0/deploys/") return json(200, IOS_DEPLOYS, { link: link(p, null) });
    if (p === "/api/0/organizations/globex/releases/ios%402.0.0/commits/") return json(200, IOS_COMMITS, { link: link(p, null) });
    if (p === "/api/0/organizations/globex/releases/payments%401.4.0/deploys/") return json(200, [], { link: link(p, null) });
    if (p === "/api/0/organizations/globex/releases/payments%401.4.0/commits/") return json(200, [], { link: link(p, null) });
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
