import type { IncomingMessage } from 'node:http';
import { iriProblem } from '../iri/validate.js';

/**
 * Reading a SPARQL 1.1 Protocol request (https://www.w3.org/TR/sparql11-protocol/): the
 * operation it carries, its body within a size limit, and its credentials.
 */

/** A request the server refuses, with the HTTP status and the message it answers with. */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Graph IRIs given by the protocol's dataset parameters. */
export interface GraphList {
  defaultGraphs: string[];
  namedGraphs: string[];
}

/** The one operation a request carries. */
export interface SparqlOperation {
  kind: 'query' | 'update';
  text: string;
  /**
   * A query's `default-graph-uri` / `named-graph-uri`, an update's `using-graph-uri` /
   * `using-named-graph-uri`; undefined when none is given.
   */
  dataset?: GraphList;
}

const FORM = 'application/x-www-form-urlencoded';
const QUERY_BODY = 'application/sparql-query';
const UPDATE_BODY = 'application/sparql-update';

// The protocol's dataset parameters of each kind of operation: [default graphs, named graphs].
const DATASET_PARAMS = {
  query: ['default-graph-uri', 'named-graph-uri'],
  update: ['using-graph-uri', 'using-named-graph-uri'],
} as const;

/**
 * The operation of a GET (`?query=`) or POST (form-encoded `query=`/`update=`, or an
 * `application/sparql-query` / `application/sparql-update` body) request to the endpoint.
 * The dataset parameters come from the query string, and from the form of a form-encoded POST.
 * @throws ProtocolError 405 for another method, 415 for another body type, 413 for a body
 *   over `limitBytes`, 400 for a missing or repeated operation, a dataset parameter of the
 *   other kind of operation, or a graph that is not an absolute IRI.
 */
export async function readOperation(req: IncomingMessage, url: URL, limitBytes: number): Promise<SparqlOperation> {
  if (req.method === 'GET') return fromParams(url.searchParams, false);
  if (req.method !== 'POST') {
    throw new ProtocolError(405, `method ${req.method ?? '?'} is not allowed: send queries by GET or POST and updates by POST`, {
      allow: 'GET, POST',
    });
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== FORM && type !== QUERY_BODY && type !== UPDATE_BODY) {
    throw new ProtocolError(
      415,
      `content type ${JSON.stringify(type || '(none)')} is not accepted: expected ${FORM}, ${QUERY_BODY} or ${UPDATE_BODY}`,
    );
  }
  const body = await readBody(req, limitBytes);
  if (type === FORM)
    return (url.search === '' && singleParameter(body)) || fromParams(withUrlDataset(new URLSearchParams(body), url.searchParams), true);
  const op: SparqlOperation = { kind: type === QUERY_BODY ? 'query' : 'update', text: body };
  // Without a query string there are no dataset parameters to read (and no URLSearchParams to build).
  return url.search === '' ? op : withDataset(op, url.searchParams);
}

/**
 * A form of one `query=` or `update=` parameter, as the product's own clients send every
 * query, decoded without URLSearchParams (a quarter of its CPU on a 3.6 KB update); undefined
 * for anything else, and for a value decodeURIComponent refuses (invalid UTF-8, a stray `%`),
 * which URLSearchParams then decodes its own way.
 */
function singleParameter(body: string): SparqlOperation | undefined {
  const kind = body.startsWith('query=') ? 'query' : body.startsWith('update=') ? 'update' : undefined;
  if (kind === undefined || body.includes('&')) return undefined;
  try {
    return { kind, text: decodeURIComponent(body.slice(kind.length + 1).replaceAll('+', ' ')) };
  } catch {
    return undefined;
  }
}

function fromParams(params: URLSearchParams, post: boolean): SparqlOperation {
  const queries = params.getAll('query');
  const updates = params.getAll('update');
  if (queries.length + updates.length === 0) throw new ProtocolError(400, 'expected a "query" or an "update" parameter');
  if (queries.length + updates.length > 1) throw new ProtocolError(400, 'expected exactly one "query" or "update" parameter, got several');
  if (updates.length > 0 && !post) throw new ProtocolError(400, 'an update must be POSTed (SPARQL 1.1 Protocol), not sent by GET');
  return withDataset(queries.length > 0 ? { kind: 'query', text: queries[0]! } : { kind: 'update', text: updates[0]! }, params);
}

// Some clients send the dataset parameters in the URL even when they POST a form.
function withUrlDataset(form: URLSearchParams, url: URLSearchParams): URLSearchParams {
  const names: readonly string[] = [...DATASET_PARAMS.query, ...DATASET_PARAMS.update];
  for (const [name, value] of url) if (names.includes(name)) form.append(name, value);
  return form;
}

function withDataset(op: SparqlOperation, params: URLSearchParams): SparqlOperation {
  const other = DATASET_PARAMS[op.kind === 'query' ? 'update' : 'query'].find((name) => params.has(name));
  if (other !== undefined)
    throw new ProtocolError(
      400,
      `parameter "${other}" belongs to ${op.kind === 'query' ? 'an update' : 'a query'}, not to this ${op.kind}`,
    );
  const [defaults, named] = DATASET_PARAMS[op.kind];
  if (!params.has(defaults) && !params.has(named)) return op;
  return { ...op, dataset: { defaultGraphs: graphIris(params, defaults), namedGraphs: graphIris(params, named) } };
}

function graphIris(params: URLSearchParams, name: string): string[] {
  return params.getAll(name).map((iri) => {
    const problem = iriProblem(iri);
    if (problem !== undefined)
      throw new ProtocolError(400, `parameter "${name}" ${JSON.stringify(iri)} is not an absolute IRI: ${problem}`);
    return iri;
  });
}

/**
 * The body as UTF-8 text, refused with 413 as soon as it (or its declared length) passes
 * `limitBytes`. The rest of a refused body is left unread; the caller drains it.
 */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  const tooLarge = () =>
    new ProtocolError(413, `request body is larger than ${limitBytes} bytes (bodyLimitBytes)`, { connection: 'close' });
  if (declared > limitBytes) throw tooLarge();
  // Events, not `for await`: leaving an async iteration early destroys the request, and with
  // it the socket the 413 must be answered on.
  const body = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else {
        req.off('data', onData);
        reject(tooLarge());
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new ProtocolError(400, 'request body is not valid UTF-8');
  }
}

/**
 * Checks the request's credentials with `isToken` (no check when undefined; see the kit's
 * secretMatcher, which compares in constant time): a Bearer token, or basic auth whose password
 * is the token (any user name), which is what this project's remote store sends (`SPARQL_USER`
 * and `SPARQL_PASSWORD` or `SPARQL_PASSWORD_FILE`).
 * @throws ProtocolError 401 naming both ways to send the token.
 */
export function authorize(req: IncomingMessage, isToken: ((presented: string) => boolean) | undefined): void {
  if (isToken === undefined) return;
  const header = req.headers.authorization ?? '';
  const space = header.indexOf(' ');
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  let presented: string | undefined;
  if (scheme === 'bearer') presented = value;
  else if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    presented = decoded.slice(decoded.indexOf(':') + 1);
  }
  if (presented !== undefined && isToken(presented)) return;
  throw new ProtocolError(
    401,
    'this SPARQL endpoint needs the store token: send it as the basic-auth password (SPARQL_USER and SPARQL_PASSWORD_FILE for a sidecar) or as a Bearer token',
    { 'www-authenticate': 'Basic realm="semantic-sidecar store", charset="UTF-8"' },
  );
}
