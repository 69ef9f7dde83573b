/**
 * Grouping v3 on events written from each SDK's documented payload (Java/Kotlin, Python, Ruby,
 * PHP, Go, .NET, Node, browser): every copy that differs only in what v3 cleans joins its
 * original, and originals that differ stay apart.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { corpusFiles, corpusJson } from "../../../test/pipeline/corpus";
import type { NormalizedEvent } from "../event";
import { annotateNextjs } from "../nextjs/index";
import { normalizeEvent } from "../normalize-event";
import { compileGroupingRules, groupEvent, NO_GROUPING_RULES, type ProjectGroupingRules } from "./index";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const ctx = { receivedAt: Date.UTC(2026, 10, 27, 3, 0), clientIp: null, eventId: `${"0".repeat(31)}3` };
const norm = (raw: unknown): NormalizedEvent => normalizeEvent(raw, ctx);
const group = (raw: unknown, rules: ProjectGroupingRules = NO_GROUPING_RULES, version = "v3") =>
  groupEvent(norm(raw), version, sha256, rules);
const same = (a: unknown, b: unknown, rules?: ProjectGroupingRules) =>
  group(a, rules).hashes.some((h) => group(b, rules).hashes.includes(h));

type F = Record<string, unknown>;
const exc = (platform: string, type: string, value: string, frames: F[], extra: F = {}) => ({
  platform,
  ...extra,
  exception: { values: [{ type, value, stacktrace: { frames } }] },
});

// --- Java / Kotlin (sentry-java: module = class, function = method, filename = source file) ---
const jf = (module: string, fn: string, inApp = false, filename?: string): F => ({
  module,
  function: fn,
  filename: filename ?? `${module.split(".").pop()?.split("$")[0]}.java`,
  lineno: 10,
  in_app: inApp,
});
const javaBase: F[] = [
  jf("java.lang.Thread", "run"),
  jf("java.util.concurrent.ThreadPoolExecutor$Worker", "run"),
  jf("java.util.concurrent.ThreadPoolExecutor", "runWorker"),
  jf("org.springframework.web.servlet.FrameworkServlet", "service"),
];
const javaEvent = (app: F[], value = "order 17 not found") =>
  exc("java", "java.lang.IllegalStateException", value, [...javaBase, ...app], {
    sdk: { name: "sentry.java.spring-boot.jakarta", version: "8.0.0" },
  });

describe("v3: generated JVM names join their original", () => {
  const cases: Array<[string, F, F]> = [
    [
      "javassist",
      jf("com.shop.api.OrderResource_$$_javassist_74", "load", true, "OrderResource_$$_javassist_74.java"),
      jf("com.shop.api.OrderResource_$$_javassist_seam_912", "load", true, "OrderResource_$$_javassist_seam_912.java"),
    ],
    [
      "CGLIB",
      jf("com.shop.OrderService$$EnhancerBySpringCGLIB$$a1b2c3d4", "place", true),
      jf("com.shop.OrderService$$EnhancerBySpringCGLIB$$9f8e7d6c_2", "place", true),
    ],
    [
      "Guice proxies (nested too)",
      jf("com.shop.web.CartController$$EnhancerByGuice$$5e6f7a8b$$FastClassByGuice$$0a1b2c3d", "view", true),
      jf("com.shop.web.CartController$$EnhancerByGuice$$99aa00bb$$FastClassByGuice$$feedf00d", "view", true),
    ],
    [
      "HibernateProxy",
      jf("com.shop.Order$HibernateProxy$ZIFtUTMC", "getTotal", true),
      jf("com.shop.Order$HibernateProxy$Q7kd02Lb", "getTotal", true),
    ],
    [
      "generated accessor",
      jf("jdk.internal.reflect.GeneratedMethodAccessor41", "invoke"),
      jf("jdk.internal.reflect.GeneratedMethodAccessor977", "invoke"),
    ],
    [
      "constructor accessor",
      jf("sun.reflect.GeneratedConstructorAccessor12", "newInstance"),
      jf("sun.reflect.GeneratedConstructorAccessor310", "newInstance"),
    ],
    ["Java 8 lambda method", jf("com.shop.Checkout", "lambda$pay$0", true), jf("com.shop.Checkout", "lambda$pay$3", true)],
    [
      "$$Lambda$ class",
      jf("com.shop.Checkout$$Lambda$40/0x0000000800c02a00", "accept", true),
      jf("com.shop.Checkout$$Lambda$77/0x0000000801a0b4f0", "accept", true),
    ],
    [
      "JDK 21 lambda class",
      jf("com.shop.Checkout$$Lambda/0x00007f3c1c0a1234", "accept", true),
      jf("com.shop.Checkout$$Lambda/0x00007f3c1c0b9876", "accept", true),
    ],
    ["Clojure fn", jf("shop.core$fn__12345", "invoke", true, "core.clj"), jf("shop.core$fn__67890", "invoke", true, "core.clj")],
  ];
  const crash = jf("com.shop.OrderService", "load", true);
  test.each(cases)("%s", (_name, a, b) => {
    // Both variants agree (the system one sees every frame, in-app or not) …
    expect(group(javaEvent([a, crash])).hashes).toEqual(group(javaEvent([b, crash])).hashes);
    // … where v2's system variant split them (the bug v3 fixes), proving the copies really differ.
    const v2 = (e: unknown) => {
      const g = group(e, NO_GROUPING_RULES, "v2");
      return g.hashes[g.variants.indexOf("system")];
    };
    expect(v2(javaEvent([a, crash]))).not.toBe(v2(javaEvent([b, crash])));
  });

  test("different classes or methods behind the generated parts stay apart", () => {
    const cglib = (cls: string) => javaEvent([jf(`com.shop.${cls}$$EnhancerBySpringCGLIB$$a1b2c3d4`, "place", true)]);
    expect(same(cglib("OrderService"), cglib("CartService"))).toBe(false);
    const proxy = (fn: string) => javaEvent([jf("com.shop.Order$HibernateProxy$ZIFtUTMC", fn, true)]);
    expect(same(proxy("getTotal"), proxy("getLines"))).toBe(false);
    const ruby = (tpl: string) => rubyEvent([rf(`_app_views_orders_${tpl}_html_erb__1234567_89012`, `app/views/orders/${tpl}.html.erb`)]);
    expect(same(ruby("show"), ruby("index"))).toBe(false);
  });

  test("sentry-java's own frames, reflection and thread bases neither decide nor count as the app", () => {
    const crash = jf("com.shop.OrderService", "load", true);
    const plain = javaEvent([crash]);
    const noisy = javaEvent([
      jf("java.lang.reflect.Method", "invoke"),
      jf("io.sentry.spring.jakarta.SentrySpringFilter", "doFilterInternal", true),
      crash,
    ]);
    expect(group(noisy).hashes).toEqual(group(plain).hashes);
    const g = group(noisy);
    expect(g.components.join("\n")).toContain('built-in rule "module:io.sentry.* category=framework -group"');
    expect(g.components.join("\n")).toContain('built-in rule "category:threadbase -group v-group"');
    expect(g.components.some((c) => c.startsWith("system:") && c.includes("ThreadPoolExecutor"))).toBe(false);
  });

  test("the JDK calling itself: only its outermost frame groups, so a JDK update does not split issues", () => {
    const build = jf("com.shop.Report", "build", true);
    const crash = jf("com.shop.Report", "addLine", true);
    const jdk17 = javaEvent([build, jf("java.util.ArrayList", "forEach"), jf("java.util.ArrayList$Itr", "forEachRemaining"), crash]);
    const jdk21 = javaEvent([build, jf("java.util.ArrayList", "forEach"), jf("java.util.Iterator", "forEachRemaining"), crash]);
    expect(group(jdk21).hashes).toEqual(group(jdk17).hashes);
    const lines = group(jdk17).components.join("\n");
    expect(lines).toContain("system: frame[5] module=java.util.ArrayList function=forEach");
    expect(lines).toContain('built-in rule "category:internals -group"');
    // A different outermost JDK entry point is a different path.
    const viaStream = javaEvent([
      build,
      jf("java.util.stream.ReferencePipeline", "forEach"),
      jf("java.util.Iterator", "forEachRemaining"),
      crash,
    ]);
    expect(group(viaStream).hashes[1]).not.toEqual(group(jdk17).hashes[1]);
  });

  test("Kotlin: kotlin.* and kotlinx.* are never in-app", () => {
    const kt = (extra: F[]) =>
      exc("java", "kotlin.KotlinNullPointerException", "", [...extra, jf("com.shop.CartViewModel", "refresh", true, "CartViewModel.kt")]);
    const withStd = kt([{ ...jf("kotlinx.coroutines.DispatchedTask", "run", true, "DispatchedTask.kt") }]);
    const app = group(withStd).components.filter((c) => c.startsWith("app:"));
    expect(app.join("\n")).not.toContain("kotlinx");
  });
});

// --- Ruby (sentry-ruby: function, filename, abs_path, context_line) ---
const rf = (fn: string, file: string, inApp = true): F => ({
  function: fn,
  filename: file,
  abs_path: `/srv/shop/${file}`,
  lineno: 3,
  in_app: inApp,
});
const rubyEvent = (frames: F[]) => exc("ruby", "NoMethodError", "undefined method `name' for nil", frames);

describe("v3: Ruby, Python, PHP, Go, .NET", () => {
  test("Ruby ERB template suffixes and block annotations are cleaned", () => {
    const a = rubyEvent([rf("_app_views_orders_show_html_erb__4142341529683185617_47273560", "app/views/orders/show.html.erb")]);
    const b = rubyEvent([rf("_app_views_orders_show_html_erb__1029384756102938_60482937", "app/views/orders/show.html.erb")]);
    expect(same(a, b)).toBe(true);
    expect(
      same(rubyEvent([rf("block (2 levels) in call", "app/jobs/sync.rb")]), rubyEvent([rf("block in call", "app/jobs/sync.rb")])),
    ).toBe(true);
  });

  const py = (fn: string, path = "/srv/app/shop/views.py", inApp = true): F => ({
    function: fn,
    module: "shop.views",
    filename: "shop/views.py",
    abs_path: path,
    context_line: "    return order.total",
    in_app: inApp,
  });
  test("Python: site-packages frames are not in-app; in-app frames decide", () => {
    const lib = py("dispatch", "/usr/lib/python3/site-packages/django/core/handlers/base.py", true);
    const g = group(exc("python", "AttributeError", "'NoneType' object has no attribute 'total'", [lib, py("order_total")]));
    expect(g.components.filter((c) => c.startsWith("app:")).join("\n")).not.toContain("dispatch");
    expect(same(exc("python", "AttributeError", "x", [py("order_total")]), exc("python", "AttributeError", "y", [py("cart_total")]))).toBe(
      false,
    );
  });

  test("PHP anonymous classes group by method; closures do not contribute a name", () => {
    const php = (fn: string) =>
      exc("php", "RuntimeException", "boom", [
        { function: fn, filename: "src/Checkout.php", abs_path: "/var/www/src/Checkout.php", in_app: true },
      ]);
    expect(
      same(php("class@anonymous/var/www/src/Checkout.php:12$0::handle"), php("class@anonymous/var/www/src/Checkout.php:12$1f::handle")),
    ).toBe(true);
    expect(same(php("{closure}"), php("handle"))).toBe(false);
  });

  test("Go: module cache frames are not in-app", () => {
    const gf = (fn: string, path: string, inApp: boolean): F => ({
      function: fn,
      module: "main",
      abs_path: path,
      filename: path.split("/").pop(),
      in_app: inApp,
    });
    const ev = exc("go", "*errors.errorString", "not found", [
      gf("ServeHTTP", "/root/go/pkg/mod/github.com/gin-gonic/gin@v1.9.1/gin.go", true),
      gf("loadOrder", "/src/shop/orders.go", true),
    ]);
    const app = group(ev).components.filter((c) => c.startsWith("app:"));
    expect(app.join("\n")).toContain("loadOrder");
    expect(app.join("\n")).not.toContain("ServeHTTP");
  });

  test(".NET: the raw function (with its signature) decides", () => {
    const cs = (raw: string) =>
      exc("csharp", "System.NullReferenceException", "Object reference not set", [
        { function: "Load", raw_function: raw, module: "Shop.Orders.OrderService", in_app: true },
      ]);
    expect(same(cs("Load(Int32 id)"), cs("Load(String slug)"))).toBe(false);
  });
});

// --- JavaScript ---
describe("v3: JavaScript", () => {
  const nf = (fn: string, path: string, inApp: boolean, module?: string): F => ({
    function: fn,
    filename: path,
    abs_path: path,
    module,
    in_app: inApp,
    context_line: `  ${fn}();`,
  });
  test("@babel/runtime, core-js and tslib frames do not group, by module or by path", () => {
    const crash = nf("loadOrder", "/srv/src/orders.js", true);
    const plain = exc("node", "TypeError", "x", [crash]);
    for (const helper of [
      nf("asyncGeneratorStep", "/srv/node_modules/@babel/runtime/helpers/asyncToGenerator.js", false),
      nf("__awaiter", "/srv/node_modules/tslib/tslib.js", false),
      nf("Promise.then", "/srv/node_modules/core-js/internals/perform.js", false),
      nf("asyncGeneratorStep", "webpack:///./helpers/asyncToGenerator.js", false, "@babel/runtime/helpers/asyncToGenerator"),
    ]) {
      expect(group(exc("node", "TypeError", "x", [helper, crash])).hashes).toEqual(group(plain).hashes);
    }
  });

  test("no module is invented for frames from URLs", () => {
    const url = (file: string) =>
      exc("javascript", "TypeError", "x", [
        { function: "render", abs_path: `https://shop.example/static/js/${file}`, filename: `/static/js/${file}`, in_app: true },
      ]);
    const g = group(url("main.3f2a9c1b.js"));
    expect(g.components.join("\n")).not.toContain("module=");
  });

  test("ChunkLoadError groups by the built-in fingerprint, whatever the chunk", () => {
    const chunk = (n: string, fn: string) =>
      exc("javascript", "ChunkLoadError", `Loading chunk ${n} failed.`, [
        { function: fn, abs_path: "https://shop.example/app.js", in_app: true },
      ]);
    const a = group(chunk("17", "a"));
    expect(a.source).toBe("fingerprint");
    expect(a.hashes).toEqual(group(chunk("342", "b")).hashes);
    expect(a.components.join("\n")).toContain("built-in fingerprint rule");
    // Not for other platforms.
    expect(group({ ...chunk("17", "a"), platform: "python" }).source).not.toBe("fingerprint");
  });

  test("the Next.js rules and the SDK's fingerprint win over the built-in fingerprints", () => {
    const chunk = (release: string, extra: F = {}) => ({
      ...exc("javascript", "ChunkLoadError", "Loading chunk 17 failed.", [{ function: "a", abs_path: "https://shop.example/app.js" }]),
      release,
      ...extra,
    });
    // As the digest runs them: the Next.js rules first, then grouping.
    const digested = (raw: unknown) => {
      const e = norm(raw);
      annotateNextjs(e);
      return groupEvent(e, "v3", sha256);
    };
    const r1 = digested(chunk("web@1"));
    expect(r1.components.join("\n")).not.toContain("built-in fingerprint rule");
    // Deploy skew stays one issue per release, as the Next.js rules intend.
    expect(r1.hashes).toEqual(digested(chunk("web@1")).hashes);
    expect(r1.hashes).not.toEqual(digested(chunk("web@2")).hashes);
    // A fingerprint the SDK sent is kept too.
    const custom = group(chunk("web@1", { fingerprint: ["checkout-chunks"] }));
    expect(custom.components.join("\n")).not.toContain("built-in fingerprint rule");
    expect(custom.hashes).toEqual(group(chunk("web@2", { fingerprint: ["checkout-chunks"] })).hashes);
    // `{{ default }}` alone is no fingerprint of its own: the built-in one applies.
    expect(group(chunk("web@1", { fingerprint: ["{{ default }}"] })).components.join("\n")).toContain("built-in fingerprint rule");
  });
});

describe("v3: shapes and values", () => {
  test("the legacy single-object exception groups by its type and value, never with unrelated events", () => {
    const legacy = (type: string, value: string) => ({ platform: "javascript", exception: { type, value } });
    const a = group(legacy("TypeError", "x is undefined"));
    expect(a.source).toBe("exception");
    expect(same(legacy("TypeError", "x is undefined"), legacy("RangeError", "bad length"))).toBe(false);
    expect(same(legacy("TypeError", "x is undefined"), { platform: "javascript", message: "unrelated" })).toBe(false);
  });

  test("chained exceptions: once any stack contributes, no value does", () => {
    const chain = (cause: string) => ({
      platform: "python",
      exception: {
        values: [
          { type: "KeyError", value: cause, stacktrace: { frames: [{ function: "get", module: "dict_lib", in_app: false }] } },
          {
            type: "OrderError",
            value: "lookup failed",
            stacktrace: { frames: [{ function: "load", module: "shop.orders", in_app: true }] },
          },
        ],
      },
    });
    expect(group(chain("'a1'")).hashes).toEqual(group(chain("'zz'")).hashes);
  });

  test("generated quoted identifiers are parameterised", () => {
    const sp = (name: string) => ({
      platform: "python",
      exception: { values: [{ type: "OperationalError", value: `savepoint "${name}" does not exist` }] },
    });
    expect(same(sp("s140061535458112_x1"), sp("s139872203841216_x7"))).toBe(true);
    expect(
      same(sp("s140061535458112_x1"), {
        ...sp("x"),
        exception: { values: [{ type: "OperationalError", value: 'table "orders" does not exist' }] },
      }),
    ).toBe(false);
  });

  test("{{ message }} renders the exception's message when the event has no log message", () => {
    const ev = (value: string) => ({
      platform: "python",
      fingerprint: ["{{ message }}"],
      exception: { values: [{ type: "ValueError", value }] },
    });
    const g = group(ev("bad"));
    expect(g.components[0]).toContain('"ValueError: bad"');
    expect(same(ev("bad"), ev("worse"))).toBe(false);
  });
});

describe("v3: project rules", () => {
  const crash = jf("com.shop.OrderService", "load", true);
  const helper = (n: string) => jf(`com.shop.util.Guard${n}`, "check", true);
  test("-group / +app / max-frames / ^-group change the hashes, and the deciding rule is named", () => {
    const a = javaEvent([crash, helper("A")]);
    const b = javaEvent([crash, helper("B")]);
    expect(same(a, b)).toBe(false);
    const rules = compileGroupingRules("", "stack.module:com.shop.util.* -group");
    expect(same(a, b, rules)).toBe(true);
    expect(group(a, rules).components.join("\n")).toContain('stack trace rule line 1 "stack.module:com.shop.util.* -group"');
    // max-frames=1 keeps only the newest frame: the helpers differ, so still apart …
    expect(same(a, b, compileGroupingRules("", "family:other max-frames=1"))).toBe(false);
    // … ^-group on the crash frame drops the helpers it called
    expect(same(a, b, compileGroupingRules("", "stack.function:load ^-group"))).toBe(true);
  });

  test("fingerprint rules: {{ default }}, {{ type }}, {{ transaction }}, tags and title", () => {
    const ev = (type: string, tx: string) => ({
      ...exc("python", type, "v", [{ function: "f", module: "m", in_app: true }]),
      transaction: tx,
      tags: { region: "eu" },
    });
    const rules = compileGroupingRules(
      'error.type:"Db*" tags.region:eu -> database, {{ transaction }} title="DB down in {{ transaction }}"',
      "",
    );
    expect(same(ev("DbTimeout", "/a"), ev("DbRefused", "/a"), rules)).toBe(true);
    expect(same(ev("DbTimeout", "/a"), ev("DbTimeout", "/b"), rules)).toBe(false);
    const g = group(ev("DbTimeout", "/a"), rules);
    expect(g.title).toBe("DB down in /a");
    expect(g.components.join("\n")).toContain("fingerprint rule line 1");
    const typed = compileGroupingRules("family:other -> {{ default }}, {{ type }}", "");
    expect(group(ev("DbTimeout", "/a"), typed).source).toBe("exception+fingerprint");
  });
});

describe("v3 against Sentry's groups (group_N_event_M, native: grouped as v2)", () => {
  const files = corpusFiles().filter((f) => /group_\d+_event_\d+\.json$/.test(f));
  const groupOf = (f: string) => /group_(\d+)_/.exec(f)?.[1] ?? "";
  const hashes = (version: string) => new Map(files.map((f) => [f, group(corpusJson(f), NO_GROUPING_RULES, version).hashes]));
  const v2 = hashes("v2");
  const v3 = hashes("v3");
  const pairs = files.flatMap((a, i) => files.slice(i + 1).map((b) => [a, b] as const));
  const share = (m: Map<string, string[]>, a: string, b: string) => (m.get(a) ?? []).some((h) => (m.get(b) ?? []).includes(h));

  test("no different-group pair shares a hash, and v3 joins every same-group pair v2 joins", () => {
    expect(pairs.filter(([a, b]) => groupOf(a) !== groupOf(b) && share(v3, a, b))).toEqual([]);
    const same = pairs.filter(([a, b]) => groupOf(a) === groupOf(b));
    expect(same.filter(([a, b]) => share(v2, a, b) && !share(v3, a, b))).toEqual([]);
  });
});

describe("preview of draft rules", () => {
  test("counts draft issues and names the merges and splits", async () => {
    const { previewGrouping } = await import("./preview");
    const ev = (helper: string, value = "v") =>
      norm(javaEvent([jf("com.shop.OrderService", "load", true), jf(helper, "check", true)], value));
    // Issues 1 and 2 differ only in a util helper; issue 3 holds two different errors.
    const inputs = [
      { issueId: 1, event: ev("com.shop.util.A") },
      { issueId: 2, event: ev("com.shop.util.B") },
      { issueId: 3, event: ev("com.shop.billing.X") },
      { issueId: 3, event: ev("com.shop.billing.Y") },
    ];
    const none = previewGrouping(inputs, "v3", NO_GROUPING_RULES, sha256);
    expect(none).toMatchObject({ events: 4, currentIssues: 3, draftIssues: 4, merges: [], splits: [{ issueId: 3, parts: 2 }] });
    const draft = previewGrouping(
      inputs,
      "v3",
      compileGroupingRules("", "stack.module:com.shop.util.* -group\nstack.module:com.shop.billing.* -group"),
      sha256,
    );
    expect(draft).toMatchObject({ draftIssues: 1, merges: [[1, 2, 3]], splits: [] });
  });
});
