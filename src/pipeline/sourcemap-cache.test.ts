import { describe, expect, test } from "vitest";
import { CostLru } from "./sourcemap-cache";

describe("CostLru", () => {
  test("evicts the least recently used entries once the cost budget is exceeded", () => {
    const lru = new CostLru<string>(100);
    lru.set("a", "A", 40);
    lru.set("b", "B", 40);
    expect(lru.get("a")).toBe("A"); // a is now the most recent
    lru.set("c", "C", 40);
    expect(lru.has("b")).toBe(false);
    expect(lru.get("a")).toBe("A");
    expect(lru.get("c")).toBe("C");
    expect(lru.cost).toBe(80);
  });

  test("an entry bigger than the budget is not kept; replacing an entry recounts its cost", () => {
    const lru = new CostLru<string>(100);
    lru.set("a", "A", 60);
    lru.set("huge", "H", 101);
    expect(lru.has("huge")).toBe(false);
    expect(lru.get("a")).toBe("A");
    lru.set("a", "A2", 10);
    expect(lru.cost).toBe(10);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(lru.cost).toBe(0);
  });
});
