#!/usr/bin/env node
// `npm start`: build when needed (first run, or sources newer than the build), then start Errata.
import path from "node:path";
import { ensureBuild, root } from "./ensure-build.mjs";

ensureBuild();
const { main } = await import(path.join(root, "dist", "cli.mjs"));
await main([process.argv[0], "errata", "start", ...process.argv.slice(2)]);
