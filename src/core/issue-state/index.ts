/** The issue lifecycle (SPEC §4) as pure functions; see transitions.ts for the diagram. */
export * from "./release-order";
export * from "./transitions";
export * from "./types";
export * from "./update-input";
