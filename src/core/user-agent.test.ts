import { describe, expect, test } from "vitest";
import type { NormalizedEvent } from "./event";
import { statTagsOf } from "./search/event-tags";
import { applyUserAgentContexts, contextsFromUserAgent } from "./user-agent";

const CHROME_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const FIREFOX_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0";

const eventWith = (ua: string, contexts?: NormalizedEvent["contexts"]): NormalizedEvent =>
  ({ request: { headers: [["User-Agent", ua]] }, ...(contexts ? { contexts } : {}) }) as unknown as NormalizedEvent;

describe("contexts from the User-Agent (as Relay derives them)", () => {
  test("desktop Chrome on macOS: browser, os and the Mac as device", () => {
    expect(contextsFromUserAgent(CHROME_MAC)).toEqual({
      browser: { type: "browser", name: "Chrome", version: "124.0.0.0" },
      os: { type: "os", name: "Mac OS", version: "10.15.7" },
      device: { type: "device", family: "Macintosh", model: "Macintosh", brand: "Apple" },
    });
    // Windows desktops name no device.
    expect(contextsFromUserAgent(FIREFOX_WIN).device).toBeUndefined();
  });

  test("iPhone: a device with model and brand", () => {
    const c = contextsFromUserAgent(IPHONE);
    expect(c.device).toEqual({ type: "device", family: "iPhone", model: "iPhone", brand: "Apple" });
    expect(c.os).toEqual({ type: "os", name: "iOS", version: "17.4" });
    expect(c.browser).toMatchObject({ name: "Mobile Safari", version: "17.4" });
  });

  test("fills only missing contexts; the SDK's own stay as sent", () => {
    const e = eventWith(FIREFOX_WIN, { os: { name: "Windows", version: "11 (from the SDK)" } });
    applyUserAgentContexts(e);
    expect(e.contexts?.os).toEqual({ name: "Windows", version: "11 (from the SDK)" });
    expect(e.contexts?.browser).toEqual({ type: "browser", name: "Firefox", version: "125.0" });
  });

  test("no User-Agent, an empty one or a garbage one: nothing invented", () => {
    const none = { request: { headers: [["Accept", "*/*"]] } } as unknown as NormalizedEvent;
    applyUserAgentContexts(none);
    expect(none.contexts).toBeUndefined();
    const empty = eventWith("   ");
    applyUserAgentContexts(empty);
    expect(empty.contexts).toBeUndefined();
    const garbage = eventWith("\u0000\u0001 zzz");
    applyUserAgentContexts(garbage);
    expect(garbage.contexts?.browser).toBeUndefined();
  });

  test("tags follow the contexts, and values are trimmed (an `os` tag kept its newline)", () => {
    const e = eventWith(CHROME_MAC);
    applyUserAgentContexts(e);
    const tags = Object.fromEntries(statTagsOf(e));
    expect(tags).toMatchObject({ browser: "Chrome 124.0.0.0", "browser.name": "Chrome", os: "Mac OS 10.15.7", "os.name": "Mac OS" });
    const sdk = {
      contexts: { os: { name: "Linux\n", version: "6.1\n" } },
      tags: [["region", " eu-west-1\n"]],
    } as unknown as NormalizedEvent;
    const clean = Object.fromEntries(statTagsOf(sdk));
    expect(clean["os.name"]).toBe("Linux");
    expect(clean.region).toBe("eu-west-1");
    expect(clean.os?.endsWith("\n")).toBe(false);
  });
});
