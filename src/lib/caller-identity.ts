/**
 * Who asks for something: the one place a caller's identity is named for what the graph and the
 * logs record about it (today: who cancelled an Operation). The local API has no named callers
 * yet: whoever reaches its owner-only socket, or holds its one token, is the same caller, so the
 * names below say which door was used, not who came through it. Named tokens replace them here.
 */
import { userInfo } from 'node:os';

/** A caller of the local API over its owner-only Unix socket. */
export const LOCAL_API_SOCKET_CALLER = 'local-api:socket';

/** A caller of the local API over loopback TCP with the local API's token. */
export const LOCAL_API_TOKEN_CALLER = 'local-api:token';

/** The identity of a local API caller: which way it came in (see the module's note). */
export function localApiCaller(listen: { socket: string } | { token: string }): string {
  return 'socket' in listen ? LOCAL_API_SOCKET_CALLER : LOCAL_API_TOKEN_CALLER;
}

/**
 * The identity of a command-line caller: `cli:<user>`, the operating-system user who ran it
 * (`cli:unknown` when the system cannot say).
 */
export function cliCaller(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli:unknown';
  }
}

/**
 * The identity of a library caller: its own Service IRI, else its resource IRI, else `library`
 * (a watchdog-mode instance acting for a program that names itself nowhere).
 */
export function libraryCaller(serviceIri: string | undefined, resourceIri: string | undefined): string {
  return serviceIri ?? resourceIri ?? 'library';
}

/**
 * A caller of the web console: whoever holds the plant's token or signed in with it (`console:token`),
 * or anyone who reaches a console served without a token (`console:open`).
 */
export function consoleCaller(protectedByToken: boolean): string {
  return protectedByToken ? 'console:token' : 'console:open';
}
