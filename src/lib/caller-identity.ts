/**
 * Who asks for something: the one place a caller's identity is named for what the graph, the
 * logs and the activity feed record about it (who requested or cancelled an Operation, who
 * called a workflow). A named token (src/http/named-tokens.ts) names its holder,
 * `token:<name>`; without one the names below say which door was used: the local API's
 * owner-only socket, a server's one unnamed token, a server without a token.
 */
import { userInfo } from 'node:os';

/** A caller of the local API over its owner-only Unix socket. */
export const LOCAL_API_SOCKET_CALLER = 'local-api:socket';

/** A caller of the local API over loopback TCP with the local API's token. */
export const LOCAL_API_TOKEN_CALLER = 'local-api:token';

/** The identity of a local API caller without a named token: which way it came in (see the module's note). */
export function localApiCaller(listen: { socket: string } | { token: unknown }): string {
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

/** The identity behind a named token: `token:<name>` (see `src/http/named-tokens.ts`). */
export function tokenCaller(name: string): string {
  return `token:${name}`;
}

/** A caller of the HTTP surface with its one unnamed token. */
export const HTTP_TOKEN_CALLER = 'http:token';

/** A caller of an HTTP surface that needs no token. */
export const HTTP_OPEN_CALLER = 'http:open';

/** A caller of the web console with its one unnamed token (named tokens name themselves, see {@link tokenCaller}). */
export const CONSOLE_TOKEN_CALLER = 'console:token';

/** A caller of a web console served without a token. */
export const CONSOLE_OPEN_CALLER = 'console:open';
