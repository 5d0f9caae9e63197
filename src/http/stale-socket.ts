/**
 * Making way for a server's Unix socket. A socket file outlives a process that died without
 * closing it, and `listen` then fails with EADDRINUSE; such a file is removed. A socket some
 * process still listens on is never taken over (a second server given the same path would steal
 * the first one's clients), and a file that is not a socket is never replaced.
 */
import { lstat, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { RuntimeError, ValueError } from '../errors.js';

/** How refusals name the socket, so that the reader knows which setting to change. */
export interface SocketNames {
  /** What the socket is, e.g. `'the local API socket'`; default `'the socket'`. */
  what?: string;
  /** The setting that chose the path, e.g. `'localApi.socket'`; default `'the socket path'`. */
  setting?: string;
}

/**
 * Whether a process accepts connections on the socket at `path`. Only ECONNREFUSED (nobody
 * listens) counts as dead: EAGAIN (a full backlog) or EACCES say nothing about a listener, so
 * they are reported rather than taken for a dead socket.
 */
function probe(path: string): Promise<'live' | 'dead' | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve('live');
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'dead' : error),
    );
  });
}

/**
 * Removes the socket file at `path` when no process listens on it; does nothing when there is
 * no file.
 * @throws RuntimeError when a process listens on `path` or it cannot be probed; ValueError when
 *   `path` is a file of another kind. Both name the path and `names.setting`.
 * @example await removeStaleSocket('/run/semantic-sidecar/door1/local.sock', { what: 'the local API socket', setting: 'localApi.socket' });
 */
export async function removeStaleSocket(path: string, names: SocketNames = {}): Promise<void> {
  const { what = 'the socket', setting = 'the socket path' } = names;
  const info = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (info === undefined) return;
  if (!info.isSocket())
    throw new ValueError(`${what} path ${path} exists and is not a socket; refusing to replace it (set ${setting} to another path)`);
  const state = await probe(path);
  if (state === 'live')
    throw new RuntimeError(`a process already listens on ${what} ${path}: is another one running with this ${setting}?`);
  if (state !== 'dead')
    throw new RuntimeError(`${what} ${path} cannot be probed (${state.code ?? state.message}); remove it if no process uses it`, {
      cause: state,
    });
  await rm(path, { force: true });
}
