import { describe, expect, test } from "vitest";
import { assigneeKey, parseAssignee, teamActor, teamRef } from "./assignee";

describe("assignee keys", () => {
  test("a user id or team:<id>, and back", () => {
    expect(parseAssignee("u_123")).toEqual({ kind: "user", userId: "u_123" });
    expect(parseAssignee(teamActor(7))).toEqual({ kind: "team", teamId: 7 });
    expect(parseAssignee("team:abc")).toBeUndefined();
    expect(parseAssignee("team:0")).toBeUndefined();
    expect(teamRef({ id: 7, slug: "web" })).toEqual({ id: "team:7", email: "", name: "#web" });
  });

  test("a row's columns: the member wins, then the team, else nobody", () => {
    expect(assigneeKey("u_1", 7)).toBe("u_1");
    expect(assigneeKey(null, 7)).toBe("team:7");
    expect(assigneeKey(null, null)).toBeNull();
  });
});
