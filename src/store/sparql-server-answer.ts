import { SemanticMiddlewareError, StoreError } from '../errors.js';
import type { QueryDataset, QueryResultsOptions } from './embedded-store.js';
import { formatsOf, negotiate, RESULTS_JSON } from './sparql-server-formats.js';
import { parseQuery, parseQueryFully, planUpdate, planUpdateFully, type ParsedQuery } from './sparql-server-parse.js';
import { askResultJson, selectResultsJson, SPARQL_RESULTS_JSON, updateReportJson } from './sparql-server-results.js';
import { ProtocolError, type SparqlOperation } from './sparql-server-request.js';
import type { TripleStore } from './triple-store.js';

/** What the server answers: a status, and a body with its media type (none for 204). */
export interface Answer {
  status: number;
  type?: string;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A store that answers a query in any form and format on a given dataset (the embedded store);
 * a store without it is served for SELECT and ASK as SPARQL JSON only.
 */
export interface ResultsStore extends TripleStore {
  queryResults(query: string, options: QueryResultsOptions): Promise<string>;
}

// Oxigraph's parser errors read "error at <line>:<column>: expected ...".
const PARSER_MESSAGE = /^error at \d+:\d+: /u;
// Query answers differ by Accept.
const VARY = { vary: 'Accept' } as const;

/**
 * Runs one operation on the store; `accept` is the request's Accept header.
 *
 * Queries: every form, answered in the format `accept` prefers (see `sparql-server-formats.ts`).
 * A query that names no graph (no FROM, no dataset parameters) runs on the union of all graphs
 * as its default graph, as GraphDB, Virtuoso and Fuseki (with `unionDefaultGraph`) serve it, so
 * a client that writes into named graphs reads its data back without GRAPH clauses.
 *
 * Updates: a single DELETE/INSERT ... WHERE operation runs as the store's conditional update,
 * its WHERE (as an ASK) checked in the same atomic step (see {@link planUpdate}), and answers
 * 200 with a Virtuoso-style update report saying whether the WHERE matched (see
 * `updateReportJson`). That report is how this project's remote store tells, in one request,
 * whether a compare-and-set applied; without it the client could only look afterwards, and two
 * racing writers of the same values would both believe they won. Every other update (the DATA
 * forms, DROP, LOAD, several operations) runs as is and answers 204. An update's WHERE without
 * USING or WITH reads the store's default graph, as SPARQL 1.1 Update says.
 */
export async function execute(store: TripleStore, op: SparqlOperation, accept: string | undefined): Promise<Answer> {
  return op.kind === 'update' ? executeUpdate(store, op) : answerQuery(store, op, accept);
}

async function queryAnswer(store: TripleStore, op: SparqlOperation, accept: string | undefined): Promise<Answer> {
  const query = parseQuery(op.text);
  const format = negotiate(accept, formatsOf(query.form));
  if (hasQueryResults(store)) {
    const body = await store.queryResults(op.text, { format: format.storeFormat, dataset: datasetOf(query, op) });
    return { status: 200, type: format.contentType, body, headers: VARY };
  }
  return bindingsAnswer(store, op, query, format === RESULTS_JSON);
}

async function executeUpdate(store: TripleStore, op: SparqlOperation): Promise<Answer> {
  const plan = planUpdate(op.text, op.dataset);
  if (plan.whereAsk === undefined) {
    await store.update(plan.text);
    return { status: 204 };
  }
  try {
    const applied = await store.conditionalUpdate(plan.text, { before: plan.whereAsk, after: plan.whereAsk });
    return { status: 200, type: SPARQL_RESULTS_JSON, body: updateReportJson(applied) };
  } catch (error) {
    // The store's complaint would point into the ASK, not the request: the parser names it.
    if (parserMessage(error) !== undefined) planUpdateFully(op.text, op.dataset);
    throw error;
  }
}

/** {@link queryAnswer}, with the parser's message for a query the store refuses. */
async function answerQuery(store: TripleStore, op: SparqlOperation, accept: string | undefined): Promise<Answer> {
  try {
    return await queryAnswer(store, op, accept);
  } catch (error) {
    if (parserMessage(error) !== undefined) parseQueryFully(op.text);
    throw error;
  }
}

function hasQueryResults(store: TripleStore): store is ResultsStore {
  return typeof (store as Partial<ResultsStore>).queryResults === 'function';
}

// The protocol's parameters win over the query's own FROM clauses; without either, the union.
function datasetOf(query: ParsedQuery, op: SparqlOperation): QueryDataset {
  if (op.dataset !== undefined) return op.dataset;
  return query.namesDataset ? 'query' : 'union';
}

// A store that returns bindings only (a served remote store): its own default graph, SPARQL JSON.
async function bindingsAnswer(store: TripleStore, op: SparqlOperation, query: ParsedQuery, json: boolean): Promise<Answer> {
  const refuse = (what: string): never => {
    throw new ProtocolError(400, `${what} is not served for ${store.description}: it answers SELECT and ASK as SPARQL JSON only`);
  };
  if (query.form === 'CONSTRUCT' || query.form === 'DESCRIBE') refuse(`a ${query.form} query`);
  if (op.dataset !== undefined) refuse('a dataset given by parameters');
  if (!json) throw new ProtocolError(406, `${store.description} answers only ${SPARQL_RESULTS_JSON}`);
  const body = query.form === 'ASK' ? askResultJson(await store.ask(op.text)) : selectResultsJson(await store.select(op.text));
  return { status: 200, type: SPARQL_RESULTS_JSON, body, headers: VARY };
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
