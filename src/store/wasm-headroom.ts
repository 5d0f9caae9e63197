import { getHeapStatistics } from 'node:v8';
import { literal } from 'oxigraph';
import { LIMITS } from '../limits.js';

/**
 * Free space kept in Oxigraph's WebAssembly memory ahead of the store's growth.
 *
 * Oxigraph's allocator grows its memory in small steps (some 70 KB) as a store fills, and V8
 * answers many of those growths with a full collection of the JavaScript heap, however small the
 * heap. Measured: `store serve` under a stream of dispatch writes ran 21-75 full collections per
 * 2,500 Operations; a requester and a receiver in one process, past 64 MB of external memory,
 * ran one per growth, 15-20 a second, which took them from 1.25 to 1.5 ms of CPU per Operation.
 * So once V8's count of external memory (Oxigraph's memory is most of it) is past
 * `LIMITS.wasmHeadroomFromBytes`, a growth seen during a store call is followed by one
 * allocation of a quarter of that count (at most `LIMITS.wasmHeadroomMaxBytes`), freed at once:
 * the allocator keeps the freed block and serves the next allocations from it, so the memory
 * grows a few times, by large steps, instead.
 *
 * All stores of a process share one Oxigraph instance, so the count is the process's.
 */
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
    const after = getHeapStatistics().external_memory;
    if (after > before && after >= LIMITS.wasmHeadroomFromBytes) reserve(Math.min(LIMITS.wasmHeadroomMaxBytes, Math.floor(after / 4)));
  }
}

/** How often this process reserved headroom. */
export function wasmHeadroomReserves(): number {
  return reserves;
}

function reserve(bytes: number): void {
  // A literal's text is copied into the memory and owned there, so freeing it leaves the block
  // free. Text that does not start in ASCII is given three bytes a character and encoded
  // natively (ASCII is copied a character at a time: 4 ms a MiB); only the written third is
  // touched, the rest stays out of the resident set until the store uses it.
  // Best effort: the request whose growth this follows has been applied, and must not fail here.
  try {
    freeWasm(literal(`\u00e9${' '.repeat(Math.ceil(bytes / 3))}`));
    reserves += 1;
  } catch {
    // Oxigraph's memory is at its limit: the store's next allocation will say so itself.
  }
}

/**
 * Frees a wasm-bindgen object at once (its `free()` is missing from the typings); otherwise its
 * memory waits for the garbage collector's finalizer.
 */
function freeWasm(value: object): void {
  (value as { free?: () => void }).free?.();
}
