import { randomFillSync } from 'node:crypto';

/**
 * Random hex strings for ids (trace and span ids, Operation IRI suffixes), drawn from a pool
 * filled 4 KiB at a time: `randomBytes` for each id cost a sidecar about 8 µs per proxied call
 * (every call starts a trace), most of it the call into the random generator rather than the
 * bytes. The bytes are the same cryptographically secure ones; no byte is handed out twice.
 */
const POOL = Buffer.allocUnsafe(4096);
let next = POOL.length;

/** `bytes` random bytes (at most 256) as lower-case hex. */
export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 256) throw new RangeError(`randomHex takes 1 to 256 bytes, not ${bytes}`);
  if (next + bytes > POOL.length) {
    randomFillSync(POOL);
    next = 0;
  }
  const hex = POOL.toString('hex', next, next + bytes);
  next += bytes;
  return hex;
}
