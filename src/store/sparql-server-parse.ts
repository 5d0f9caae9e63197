import sparqljs from 'sparqljs';
import type { InsertDeleteOperation, IriTerm, Pattern, Query, Quads, SparqlQuery, Update, UpdateOperation } from 'sparqljs';
import { ProtocolError, type GraphList } from './sparql-server-request.js';
import { scanQuery, scanUpdate } from './sparql-server-scan.js';

/**
 * What the SPARQL server needs to know of a request's text: a query's form and whether it names
 * its own dataset; for an update,
 * whether it is one DELETE/INSERT ... WHERE operation (and the ASK of that WHERE), and the
 * update with the protocol's `using-graph-uri` / `using-named-graph-uri` applied. The store
 * parses every request again when it runs it; a text it refuses writes nothing.
 */

/** The query forms of SPARQL 1.1. */
export type QueryForm = Query['queryType'];

/** A query as the server runs it. */
export interface ParsedQuery {
  form: QueryForm;
  /** True when the query has FROM or FROM NAMED clauses (its own dataset). */
  namesDataset: boolean;
}

/** An update as the server runs it. */
export interface UpdatePlan {
  /** The update text to run: the request's own, or rewritten with the protocol's USING graphs. */
  text: string;
  /**
   * For one DELETE/INSERT ... WHERE, DELETE WHERE or INSERT ... WHERE operation, an ASK that
   * holds exactly when its WHERE has a solution, on the same dataset; else undefined.
   */
  whereAsk?: string;
}

// Oxigraph judges what sparqljs's extra checks (ungrouped variables and the like) would refuse.
// One parser serves every request: each parse starts from fresh prefixes and base.
const parser = new sparqljs.Parser({ skipUngroupedVariableCheck: true });
const parse = (text: string): SparqlQuery => parser.parse(text);
const generator = new sparqljs.Generator();
// A request without the word WHERE has no WHERE clause: no parse is needed for the DATA forms,
// DROP, LOAD and the like, which may be megabytes long.
const MAY_HAVE_WHERE = /where/iu;

/**
 * The form of `text` and whether it names its own dataset.
 * @throws ProtocolError 400 naming the parser's complaint, for malformed text or an update.
 * @example parseQuery('PREFIX svc: <https://w3id.org/circularfactory/Service#> ASK { ?s a svc:Service }'); // { form: 'ASK', namesDataset: false }
 */
export function parseQuery(text: string): ParsedQuery {
  return scanQuery(text) ?? parseQueryFully(text);
}

/** {@link parseQuery} by sparqljs alone: for the texts the lexer leaves, and for their errors. */
export function parseQueryFully(text: string): ParsedQuery {
  const parsed = parseOrRefuse(text, 'query');
  if (parsed.type !== 'query') throw new ProtocolError(400, 'malformed SPARQL query: this is an update; send it as "update" (POST)');
  const from = parsed.from;
  return { form: parsed.queryType, namesDataset: from !== undefined && from.default.length + from.named.length > 0 };
}

/**
 * How to run `text`: with `using` (the protocol's `using-graph-uri` / `using-named-graph-uri`)
 * every DELETE/INSERT ... WHERE operation gets those USING clauses (a DELETE WHERE becomes the
 * equivalent DELETE ... WHERE), and the rewritten update is what runs.
 * @throws ProtocolError 400 for malformed text, and for `using` beside an operation that names
 *   its own dataset (USING or WITH), as the protocol requires.
 * @example planUpdate('DELETE { ?s <urn:p> "a" } INSERT { ?s <urn:p> "b" } WHERE { ?s <urn:p> "a" }').whereAsk; // 'ASK\nWHERE { ?s <urn:p> "a". }'
 */
export function planUpdate(text: string, using?: GraphList): UpdatePlan {
  if (!MAY_HAVE_WHERE.test(text)) return { text };
  return (using === undefined ? scanUpdate(text) : undefined) ?? planUpdateFully(text, using);
}

/** {@link planUpdate} by sparqljs alone: for the texts the lexer leaves, and for their errors. */
export function planUpdateFully(text: string, using?: GraphList): UpdatePlan {
  const parsed = parseOrRefuse(text, 'update');
  if (parsed.type !== 'update') throw new ProtocolError(400, 'malformed SPARQL update: this is a query; send it as "query"');
  const update = using === undefined ? parsed : withUsing(parsed, using);
  const single = update.updates.length === 1 ? update.updates[0] : undefined;
  const whereAsk = single !== undefined && 'updateType' in single ? askOf(update, single) : undefined;
  return { text: update === parsed ? text : generator.stringify(update), ...(whereAsk === undefined ? {} : { whereAsk }) };
}

function parseOrRefuse(text: string, kind: 'query' | 'update'): SparqlQuery {
  try {
    return parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ProtocolError(400, `malformed SPARQL ${kind}: ${message}`);
  }
}

function withUsing(update: Update, using: GraphList): Update {
  const iris = (list: readonly string[]): IriTerm[] => list.map((value) => ({ termType: 'NamedNode', value }) as IriTerm);
  const dataset = { default: iris(using.defaultGraphs), named: iris(using.namedGraphs) };
  const updates = update.updates.map((op): UpdateOperation => {
    if (!('updateType' in op)) return op;
    if (op.updateType === 'deletewhere') {
      return { updateType: 'insertdelete', delete: op.delete, insert: [], where: patternsOf(op.delete), using: dataset };
    }
    if (op.updateType !== 'insertdelete') return op;
    if (op.using !== undefined || op.graph !== undefined) {
      throw new ProtocolError(
        400,
        'using-graph-uri and using-named-graph-uri cannot be given for an update that has USING or WITH clauses',
      );
    }
    return { ...op, using: dataset };
  });
  return { ...update, updates };
}

// The WHERE as an ASK on the operation's dataset: USING as FROM, or else WITH as FROM.
function askOf(update: Update, op: InsertDeleteOperation): string | undefined {
  let where: Pattern[];
  let from: { default: IriTerm[]; named: IriTerm[] } | undefined;
  if (op.updateType === 'deletewhere') where = patternsOf(op.delete);
  else if (op.updateType === 'insertdelete') {
    where = op.where;
    from = op.using ?? (op.graph === undefined ? undefined : { default: [op.graph], named: [] });
  } else return undefined;
  const ask: Query = {
    type: 'query',
    queryType: 'ASK',
    prefixes: {},
    ...(update.base === undefined ? {} : { base: update.base }),
    ...(from === undefined ? {} : { from }),
    where,
  };
  return generator.stringify(ask);
}

// A DELETE WHERE's quads as the group pattern they match.
function patternsOf(quads: Quads[]): Pattern[] {
  return quads.map((q) => (q.type === 'bgp' ? q : { type: 'graph', name: q.name, patterns: [{ type: 'bgp', triples: q.triples }] }));
}
