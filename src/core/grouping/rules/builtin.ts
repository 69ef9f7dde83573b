/**
 * Grouping v3's built-in rules, written in the same syntax projects use. They follow the
 * behaviour of Sentry's default stack-trace rules and built-in fingerprints for server and browser
 * platforms (native frames keep v2's treatment): frames that are plumbing — thread bases,
 * reflection, the SDK itself, transpiler helpers, the event loop — neither decide the issue nor
 * count as the application's code.
 */
import { type FingerprintRule, parseFingerprintRules } from "./fingerprint-rules";
import { parseStackRules, type StackRule } from "./stack-rules";

const STACK_RULES = `
# Vendored and installed packages are not the application
path:**/vendor/** -app
path:**/site-packages/** -app
path:**/dist-packages/** -app
path:**/node_modules/** -app
path:**/go/pkg/mod/** -app
path:**https://unpkg.com/** -app
path:**https://cdnjs.cloudflare.com/** -app
path:**https://cdn.jsdelivr.net/** -app

# JavaScript: transpiler output and polyfills sit in unrelated stacks
family:javascript function:reportError ^-app -app
module:@babel/** -app -group
module:core-js/** -app -group
module:regenerator-runtime/** -app -group
module:tslib/** -app -group
family:javascript path:**/node_modules/@babel/runtime/** -app -group
family:javascript path:**/node_modules/core-js/** -app -group
family:javascript path:**/node_modules/core-js-pure/** -app -group
family:javascript path:**/node_modules/regenerator-runtime/** -app -group
family:javascript path:**/node_modules/tslib/** -app -group
family:javascript function:_callSuper -app -group

# Node's event loop
function:runMicrotasks -app -group
function:queueMicrotask -app -group
function:processTicksAndRejections -app -group
function:runNextTicks -app -group
function:nextTick -app -group

# JVM: the standard library calling itself is plumbing (only its outermost frame groups),
# Android's OS frames are never the app
module:java.* category=std
module:javax.crypto.* category=std
module:android.* category=std
module:androidx.* category=std
module:android.os.* category=system
module:dalvik.system.* category=system
module:com.android.* category=system
category:system -app
[ category:std ] | category:std category=internals
[ category:std ] | category:system category=internals
[ category:system ] | category:system category=internals
category:internals -group

# JVM: thread bases and everything that calls them, reflection, the SDK, frameworks
module:java.util.concurrent.ThreadPoolExecutor* function:runWorker category=threadbase
module:java.lang.reflect.* category=indirection
module:java.lang.Class function:getMethod category=indirection
category:threadbase -group v-group
category:indirection -group
module:io.sentry.* category=framework -group
module:akka.* category=framework
module:com.fasterxml.* category=framework
module:com.microsoft.* category=framework
module:com.sun.* category=framework
module:feign.* category=framework
module:io.opentelemetry.* category=framework
module:jdk.* category=framework
module:oauth.* category=framework
module:org.apache.* category=framework
module:org.glassfish.* category=framework
module:org.jboss.* category=framework
module:org.jdesktop.* category=framework
module:org.postgresql.* category=framework
module:org.springframework.* category=framework
module:org.web3j.* category=framework
module:reactor.core.* category=framework
module:scala.* category=framework
module:sun.* category=framework
category:framework -app
module:kotlin.* -app
module:kotlinx.* -app
module:io.ktor.* -app
module:io.netty.* -app

# Other error reporters' frames
module:newrelic -app -group
path:**/*newrelic*/** -app -group
path:**/*LogRocket*/** -app -group
`;

const FINGERPRINT_RULES = `
family:javascript error.type:ChunkLoadError -> chunkloaderror
family:javascript error.value:"ChunkLoadError*" -> chunkloaderror
family:javascript tags.transaction:"*" message:"Hydration failed because the initial UI does not match what was rendered on the server." -> hydrationerror, {{ tags.transaction }}
family:javascript tags.transaction:"*" message:"The server could not finish this Suspense boundary, likely due to an error during server rendering. Switched to client rendering." -> hydrationerror, {{ tags.transaction }}
family:javascript tags.transaction:"*" message:"There was an error while hydrating this Suspense boundary. Switched to client rendering." -> hydrationerror, {{ tags.transaction }}
family:javascript tags.transaction:"*" message:"There was an error while hydrating. Because the error happened outside of a Suspense boundary, the entire root will switch to client rendering." -> hydrationerror, {{ tags.transaction }}
family:javascript tags.transaction:"*" message:"Text content does not match server-rendered HTML." -> hydrationerror, {{ tags.transaction }}
`;

function must<T>(parsed: { rules: T[]; errors: Array<{ line: number; message: string }> }): T[] {
  const first = parsed.errors[0];
  if (first) throw new Error(`built-in grouping rule line ${first.line}: ${first.message}`);
  return parsed.rules;
}

export const BUILTIN_STACK_RULES: StackRule[] = must(parseStackRules(STACK_RULES, true));
export const BUILTIN_FINGERPRINT_RULES: FingerprintRule[] = must(parseFingerprintRules(FINGERPRINT_RULES, true));
