import { SemanticMiddlewareError, StoreError } from '../errors.js';
import { askResultJson, selectResultsJson, SPARQL_RESULTS_JSON, updateReportJson } from './sparql-server-results.js';
import { ProtocolError, type SparqlOperation } from './sparql-server-request.js';
import { queryForm, updateWhereAsk } from './sparql-server-scan.js';
import type { TripleStore } from './triple-store.js';

/** What the server answers: a status, and a body with its media type (none for 204). */
export interface Answer {
  status: number;
  type?: string;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

// Oxigraph's parser errors read "error at <line>:<column>: expected ...".
const PARSER_MESSAGE = /^error at \d+:\d+: /u;

/**
 * Runs one operation on the store.
 *
 * Queries: SELECT and ASK answer SPARQL JSON results. CONSTRUCT and DESCRIBE are refused with
 * 400, since the store seam returns bindings only.
 *
 * Updates: a single DELETE/INSERT ... WHERE operation runs as the store's conditional update,
 * its WHERE (as an ASK) checked in the same atomic step (see {@link updateWhereAsk}), and
 * answers 200 with a Virtuoso-style update report saying whether the WHERE matched (see
 * `updateReportJson`). That report is how this project's remote store tells, in one request,
 * whether a compare-and-set applied; without it the client could only look afterwards, and two
 * racing writers of the same values would both believe they won. Every other update (the DATA
 * forms, DROP, LOAD, several operations) runs as is and answers 204.
 */
export async function execute(store: TripleStore, op: SparqlOperation): Promise<Answer> {
  if (op.kind === 'update') {
    const applied = await checkedUpdate(store, op.text);
    if (applied !== undefined) return { status: 200, type: SPARQL_RESULTS_JSON, body: updateReportJson(applied) };
    await store.update(op.text);
    return { status: 204 };
  }
  const form = queryForm(op.text);
  if (form === 'CONSTRUCT' || form === 'DESCRIBE') {
    throw new ProtocolError(
      400,
      `${form} queries are not served here: this endpoint answers SELECT and ASK (the store seam returns bindings only)`,
    );
  }
  if (form === 'ASK') return { status: 200, type: SPARQL_RESULTS_JSON, body: askResultJson(await store.ask(op.text)) };
  // Anything else is run as a SELECT: the store's parser says what is wrong with a malformed one.
  return { status: 200, type: SPARQL_RESULTS_JSON, body: selectResultsJson(await store.select(op.text)) };
}

/**
 * Whether the update's WHERE matched, the update applied in the same atomic step; undefined
 * when the update is not of that shape, or when its WHERE did not parse as an ASK (then the
 * plain update runs and its own parse error, if any, is what the client gets).
 */
async function checkedUpdate(store: TripleStore, update: string): Promise<boolean | undefined> {
  const ask = updateWhereAsk(update);
  if (ask === undefined) return undefined;
  try {
    return await store.conditionalUpdate(update, { before: ask, after: ask });
  } catch (error) {
    if (parserMessage(error) !== undefined) return undefined;
    throw error;
  }
}

/** The store's parser message when `error` is a malformed request, else undefined. */
export function parserMessage(error: unknown): string | undefined {
  if (!(error instanceof StoreError)) return undefined;
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  if (cause !== undefined && PARSER_MESSAGE.test(cause)) return cause;
  // A served remote store reports a malformed request as HTTP 400.
  return error.httpStatus === 400 ? error.message : undefined;
}

/**
 * The answer to a failed request: the protocol error's own status; 400 with the parser's
 * message for a malformed query or update; 400 for the product's own bad-input errors; 500 for
 * everything else, whose message is given only for the product's errors (written to be shown)
 * and is otherwise left to the server's log.
 */
export function errorAnswer(error: unknown, kind: string): Answer {
  const text = (status: number, body: string, headers: Readonly<Record<string, string>> = {}): Answer => ({
    status,
    type: 'text/plain; charset=utf-8',
    body: `${body}\n`,
    headers,
  });
  if (error instanceof ProtocolError) return text(error.status, error.message, error.headers);
  const parser = parserMessage(error);
  if (parser !== undefined) return text(400, `malformed SPARQL ${kind}: ${parser}`);
  if (error instanceof SemanticMiddlewareError) return text(error.status === 400 ? 400 : 500, error.message);
  return text(500, 'internal error of the SPARQL server (see its log)');
}
