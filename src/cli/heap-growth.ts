/**
 * The V8 heap setting `start` applies to its own process. V8 grows the old generation by a
 * factor it picks after each full collection, up to 4x for a small heap that allocates fast; a
 * sidecar's RSS then rose far above its working set under sustained load and came down only
 * later (see LIMITS.heapGrowingPercent). Node refuses `--heap-growing-percent` in NODE_OPTIONS,
 * where the deployment files set the other V8 flags, so the daemon sets it on itself, first
 * thing in `start`, before it reads its configuration and starts the sidecar; V8 reads it
 * whenever it sets the next limit.
 */
import { setFlagsFromString } from 'node:v8';
import { LIMITS } from '../limits.js';

const FLAG = '--heap-growing-percent';

/**
 * Fixes V8's old-generation growing factor at 1 + {@link LIMITS.heapGrowingPercent} / 100,
 * unless node was started with the flag (`node --heap-growing-percent=N ...`), which then stands.
 * @returns the flag set, or undefined when node's own was kept.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, setFlags = setFlagsFromString): string | undefined {
  // V8 takes its flags' names with dashes or underscores.
  if (execArgv.some((arg) => arg.split('=')[0]!.replaceAll('_', '-') === FLAG)) return undefined;
  const flag = `${FLAG}=${LIMITS.heapGrowingPercent}`;
  setFlags(flag);
  return flag;
}
