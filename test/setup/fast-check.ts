/**
 * Property tests explore new random inputs on every developer run (a failure prints its seed),
 * but CI replays one fixed seed so a red run is always reproducible and never a coin toss.
 * Override with FC_SEED=<n>.
 */
import fc from "fast-check";

const seed = process.env.FC_SEED ?? (process.env.CI === "true" ? "20261122" : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
