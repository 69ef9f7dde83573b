/** Errata's version, from package.json (bundled in; the running build says what it is). */
import pkg from "../package.json";

export const ERRATA_VERSION: string = pkg.version;
