/**
 * Closing a server within a bounded time: new connections are refused, idle keep-alive
 * connections are dropped at once, and requests still open get a grace period before their
 * connections are cut.
 */
import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

// How often idle connections are dropped while open requests finish: a keep-alive connection
// whose request ends during the grace would otherwise hold the close until its idle timeout.
// Polling costs nothing per request, unlike tracking every request to catch its end.
const IDLE_SWEEP_MS = 20;

/**
 * Closes `server`: stops accepting, drops idle connections, lets open requests finish for at
 * most `graceMs`, then cuts every connection left. Resolves when the server is closed; does
 * nothing for a server that is not listening.
 * @example await closeServer(server, LIMITS.shutdownGraceMs);
 */
export async function closeServer(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return;
  let done = false;
  const closed = new Promise<void>((resolve) => server.close(() => resolve())).finally(() => (done = true));
  server.closeIdleConnections();
  const deadline = Date.now() + graceMs;
  while (!done && Date.now() < deadline) {
    await Promise.race([closed, delay(Math.min(IDLE_SWEEP_MS, deadline - Date.now()))]);
    server.closeIdleConnections();
  }
  server.closeAllConnections();
  await closed;
}
