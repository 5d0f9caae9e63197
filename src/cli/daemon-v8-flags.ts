/**
 * The V8 settings `start` applies to its own process, first thing, before it reads its
 * configuration and starts the sidecar. Node refuses these flags in NODE_OPTIONS, where the
 * deployment files set the others, so the daemon sets them on itself; a flag given on node's
 * own command line (either spelling) stands instead.
 * - `--heap-growing-percent`: V8 grows the old generation by a factor it picks after each full
 *   collection, up to 4x for a small heap that allocates fast; a sidecar's RSS then rose far
 *   above its working set under sustained load and came down only later (see
 *   LIMITS.heapGrowingPercent). V8 reads it whenever it sets the next limit.
 * - `--wasm-tiering-budget`: how much a WebAssembly function runs before V8 compiles it again
 *   with its optimizing compiler. With V8's budget the embedded store's start-up work had
 *   Oxigraph's functions compiled twice, and the compiler's memory stayed resident (see
 *   LIMITS.wasmTieringBudget). Read when Oxigraph's module is instantiated, after this.
 */
import { setFlagsFromString } from 'node:v8';
import { LIMITS } from '../limits.js';

const DAEMON_FLAGS: ReadonlyArray<{ name: string; value: number }> = [
  { name: '--heap-growing-percent', value: LIMITS.heapGrowingPercent },
  { name: '--wasm-tiering-budget', value: LIMITS.wasmTieringBudget },
];

/**
 * Sets each of the daemon's V8 flags from LIMITS, unless node was started with it
 * (`node --heap-growing-percent=N ...`), which then stands.
 * @returns the flags set.
 */
export function setDaemonV8Flags(execArgv: readonly string[] = process.execArgv, setFlags = setFlagsFromString): string[] {
  // V8 takes its flags' names with dashes or underscores.
  const given = new Set(execArgv.map((arg) => arg.split('=')[0]!.replaceAll('_', '-')));
  const set = DAEMON_FLAGS.filter(({ name }) => !given.has(name)).map(({ name, value }) => `${name}=${value}`);
  for (const flag of set) setFlags(flag);
  return set;
}
