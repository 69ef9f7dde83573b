/**
 * Words and numbers on the screens: one plural helper (`countOf`), and no screen that spells a
 * plural by hand or decides by role what to show (they ask the permission table through
 * `services().orgs.can`, so a role's rights are written once, in src/server/access/permissions.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { countOf, nounFor } from "./format";

const SRC = path.resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Lines of the UI (pages, server actions, components) matching `re`, as "file:line: text". */
function uiLines(re: RegExp): string[] {
  return [...sources(path.join(SRC, "app")), ...sources(path.join(SRC, "ui"))].flatMap((file) =>
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (re.test(line) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe("countOf", () => {
  test("singular for exactly one, plural otherwise, with thousands separated", () => {
    expect(countOf(1, "event")).toBe("1 event");
    expect(countOf(0, "event")).toBe("0 events");
    expect(countOf(2, "session")).toBe("2 sessions");
    expect(countOf(1234, "user")).toBe("1,234 users");
    expect(countOf(1, "success", "successes")).toBe("1 success");
    expect(countOf(3, "success", "successes")).toBe("3 successes");
    expect(nounFor(1, "event")).toBe("event");
    expect(nounFor(40, "event")).toBe("events");
  });
});

describe("the screens", () => {
  test("spell no plural by hand (n === 1 ? … : …s): countOf says it", () => {
    // A count compared with 1 to choose a word; the SSO message's verb agreement ("was"/"were") is the one exception.
    const found = uiLines(/(===|!==) 1 \? "[^"]*" : "[^"]*s"|=== 1 \? "" : "e?s"/).filter((l) => !l.includes('" was" : "s were"'));
    expect(found).toEqual([]);
  });

  test("decide no control by comparing roles: they read the permission table through services().orgs.can", () => {
    const found = uiLines(/\.role\s*[!=]==\s*"(viewer|member|admin)"|role === "owner" \|\|/);
    expect(found).toEqual([]);
  });
});
