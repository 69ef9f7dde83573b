import { defineConfig } from "vitest/config";

// Three projects: pure unit tests next to the code; integration tests (HTTP + both databases, real
// SDKs and CLIs as clients) in test/; browser tests (playwright-core driving Debian's Chromium) in e2e/.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts"],
          environment: "node",
          setupFiles: ["test/setup/fast-check.ts"],
          // Projects with different worker settings must run in separate groups (vitest 4).
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          setupFiles: ["test/setup/fast-check.ts"],
          sequence: { groupOrder: 1 },
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Integration files start servers and databases; keep the 2-core machine from thrashing.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["e2e/**/*.test.ts"],
          sequence: { groupOrder: 2 },
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // One browser and one server at a time: the machine has two cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
