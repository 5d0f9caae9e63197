import { getHeapStatistics } from 'node:v8';
import { literal } from 'oxigraph';
import { LIMITS } from '../limits.js';

/**
 * Free space kept in Oxigraph's WebAssembly memory ahead of the store's growth.
 *
 * Oxigraph's allocator grows its memory in small steps as a store fills, and once that memory is
 * past about 64 MB (V8's external-memory limit) V8 answers each growth with a full collection of
 * the JavaScript heap, however small the heap: an in-memory store dispatching 800 Operations/s
 * grew 15-20 times a second, and as many full collections took its process from 1.25 to 1.5 ms
 * of CPU per Operation. So once the memory is past `LIMITS.wasmHeadroomFromBytes`, a growth seen
 * during a store call is followed by one allocation of a quarter of the memory (at most
 * `LIMITS.wasmHeadroomMaxBytes`), freed at once: the allocator keeps the freed block and serves
 * the next allocations from it, so the memory grows a few times, by large steps, instead.
 *
 * All stores of a process share one Oxigraph instance, so this state is the process's.
 */
let grownBytes = 0;
let reserves = 0;

/**
 * Runs `work` (synchronous Oxigraph calls), reserving headroom afterwards if the memory grew.
 * Growth is read from V8's count of external memory around `work`: nothing else allocates
 * outside the JavaScript heap while it runs.
 */
export function withWasmHeadroom<T>(work: () => T): T {
  const before = getHeapStatistics().external_memory;
  try {
    return work();
  } finally {
    const grown = getHeapStatistics().external_memory - before;
    if (grown > 0) reserveAfterGrowth(grown);
  }
}

/** How often headroom was reserved in this process, and the memory growth seen so far. */
export function wasmHeadroomStats(): { reserves: number; grownBytes: number } {
  return { reserves, grownBytes };
}

function reserveAfterGrowth(grown: number): void {
  grownBytes += grown;
  if (grownBytes < LIMITS.wasmHeadroomFromBytes) return;
  const bytes = Math.min(LIMITS.wasmHeadroomMaxBytes, Math.floor(grownBytes / 4));
  // A literal's text is copied into the memory and owned there, so freeing it leaves the block
  // free. Text that does not start in ASCII is given three bytes a character and encoded
  // natively (ASCII is copied a character at a time: 4 ms a MiB); only the written third is
  // touched, the rest stays out of the resident set until the store uses it.
  const block = literal(`\u00e9${' '.repeat(Math.ceil(bytes / 3))}`) as ReturnType<typeof literal> & { free?: () => void };
  block.free?.();
  grownBytes += bytes;
  reserves += 1;
}
