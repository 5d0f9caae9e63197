/**
 * The SPARQL server's quick reading of a request: what {@link parseQuery} and {@link planUpdate}
 * need (a query's form, an update's WHERE as an ASK) found from token boundaries alone, with no
 * parse tree. sparqljs takes 1-2 ms of CPU for one of this project's 1-4 KB updates, more than
 * the store takes to run it; this reading takes microseconds.
 *
 * It is a lexer, not a parser: it knows strings, IRIs, comments, variables, prefixed names and
 * braces, so a keyword or a brace inside any of them is never taken for one, and it leaves every
 * judgement of validity to the store, which parses the text itself. Whatever it does not
 * recognise, and every query with its own dataset clauses, makes it answer `undefined`; the
 * caller then asks the full parser.
 *
 * [SPARQL 1.1 grammar, terminals](https://www.w3.org/TR/sparql11-query/#terminals)
 */

import { LIMITS } from '../limits.js';
import type { ParsedQuery, UpdatePlan } from './sparql-server-parse.js';
import { sparqlTokens, type SparqlToken as Token } from './sparql-tokens.js';

const QUERY_FORMS = new Set(['SELECT', 'ASK', 'CONSTRUCT', 'DESCRIBE']);
// Update operations whose plan is the text as it is: no WHERE, or not a single operation's.
const PLAIN_UPDATES = new Set(['LOAD', 'CLEAR', 'DROP', 'CREATE', 'ADD', 'MOVE', 'COPY']);

// The last text read and its tokens: the server plans an update and the embedded store then
// places its witness in the same text, so one lexing serves both.
let lastText: string | undefined;
let lastTokens: Token[] | undefined;

/** The tokens of `text` other than space and comments; undefined for an unterminated string. */
function tokenize(text: string): Token[] | undefined {
  if (text === lastText) return lastTokens;
  const tokens = sparqlTokens(text);
  if (text.length <= LIMITS.scanMemoMaxChars) {
    lastText = text;
    lastTokens = tokens;
  }
  return tokens;
}

/** Walks the tokens of one text. */
class Reader {
  i = 0;
  constructor(
    readonly text: string,
    readonly tokens: Token[],
  ) {}

  peek(): Token | undefined {
    return this.tokens[this.i];
  }

  /** Consumes and returns the next token when it is the keyword `word`. */
  word(word: string): boolean {
    const t = this.peek();
    if (t?.kind !== 'word' || t.text !== word) return false;
    this.i += 1;
    return true;
  }

  /** An IRI as written (`<...>` or a prefixed name). */
  iri(): string | undefined {
    const t = this.peek();
    if (t?.kind !== 'iri' && t?.kind !== 'pname') return undefined;
    this.i += 1;
    return t.text;
  }

  /** The text of the `{ ... }` group that starts here, braces balanced. */
  group(): string | undefined {
    const first = this.peek();
    if (first?.text !== '{') return undefined;
    let depth = 0;
    for (; this.i < this.tokens.length; this.i++) {
      const t = this.tokens[this.i]!;
      if (t.text === '{') depth += 1;
      else if (t.text === '}') depth -= 1;
      if (depth === 0) {
        this.i += 1;
        return this.text.slice(first.start, t.end);
      }
    }
    return undefined;
  }

  /** The end of the prologue (its PREFIX and BASE declarations), as an offset into the text. */
  prologue(): number | undefined {
    let end = 0;
    for (;;) {
      if (this.word('PREFIX')) {
        if (this.peek()?.kind !== 'pname' || !this.peek()!.text.endsWith(':')) return undefined;
        this.i += 1;
      } else if (!this.word('BASE')) return end;
      if (this.peek()?.kind !== 'iri') return undefined;
      end = this.peek()!.end;
      this.i += 1;
    }
  }

  /** True when nothing but one optional `;` is left. */
  atEnd(): boolean {
    if (this.peek()?.text === ';') this.i += 1;
    return this.i === this.tokens.length;
  }
}

// SPARQL reads \u and \U escapes before it tokenizes: a text with them is left to the parser.
const CODEPOINT_ESCAPE = /\\[uU]/u;

function reader(text: string): Reader | undefined {
  if (CODEPOINT_ESCAPE.test(text)) return undefined;
  const tokens = tokenize(text);
  return tokens === undefined ? undefined : new Reader(text, tokens);
}

/**
 * The form of a query that names no dataset of its own; undefined for anything else (a FROM
 * clause, text that does not start with a query form after its prologue, an open string).
 * @example scanQuery('PREFIX svc: <https://w3id.org/circularfactory/Service#> ASK { ?s a svc:Service }'); // { form: 'ASK', namesDataset: false }
 */
export function scanQuery(text: string): ParsedQuery | undefined {
  const r = reader(text);
  if (r === undefined || r.prologue() === undefined) return undefined;
  const form = r.peek();
  if (form?.kind !== 'word' || !QUERY_FORMS.has(form.text)) return undefined;
  // FROM is a keyword only in dataset clauses; such queries are rare and left to the parser.
  if (r.tokens.some((t) => t.kind === 'word' && t.text === 'FROM')) return undefined;
  return { form: form.text as ParsedQuery['form'], namesDataset: false };
}

/**
 * The plan of an update run without the protocol's USING graphs, as {@link planUpdate} makes
 * it: the ASK of its WHERE when it is one DELETE/INSERT ... WHERE or DELETE WHERE operation,
 * made of the update's own prologue, dataset (USING as FROM, or else WITH as FROM) and WHERE
 * group; no ASK for the DATA forms and graph management; undefined when unsure.
 * @example scanUpdate('DELETE { ?s <urn:p> "a" } INSERT { ?s <urn:p> "b" } WHERE { ?s <urn:p> "a" }'); // { text: ..., whereAsk: 'ASK WHERE { ?s <urn:p> "a" }' }
 */
export function scanUpdate(text: string): UpdatePlan | undefined {
  const r = reader(text);
  const prologueEnd = r?.prologue();
  if (r === undefined || prologueEnd === undefined) return undefined;
  const first = r.peek();
  if (first?.kind === 'word' && PLAIN_UPDATES.has(first.text)) return { text };
  const ask = (dataset: string, where: string | undefined): UpdatePlan | undefined => {
    if (where === undefined) return undefined;
    if (r.atEnd()) return { text, whereAsk: `${text.slice(0, prologueEnd)} ASK ${dataset}WHERE ${where}` };
    // Several operations: their WHEREs are not one ASK.
    return r.tokens[r.i - 1]?.text === ';' ? { text } : undefined;
  };
  if (r.word('DELETE')) {
    if (r.word('DATA')) return { text };
    if (r.word('WHERE')) return ask('', r.group());
    r.i -= 1;
  } else if (r.word('INSERT')) {
    if (r.word('DATA')) return { text };
    r.i -= 1;
  }
  let dataset = '';
  if (r.word('WITH')) {
    const graph = r.iri();
    if (graph === undefined) return undefined;
    dataset = `FROM ${graph} `;
  }
  if (templates(r) === undefined) return undefined;
  const using = usingClauses(r);
  if (using === undefined || !r.word('WHERE')) return undefined;
  return ask(using || dataset, r.group());
}

/**
 * `text` with `quads` (quad template text, e.g. `GRAPH <g> { <s> <p> <o> }`) added to its INSERT
 * template, or in an INSERT clause of their own after its DELETE template when it has none;
 * undefined unless `text` is one DELETE/INSERT ... WHERE operation this reading is sure of (not
 * DELETE WHERE, the DATA forms, several operations). The added quads are written exactly when
 * the WHERE has a solution: the embedded store learns from them whether a compare-and-set
 * applied without evaluating its WHERE a second time.
 * @example withInsertedQuads('DELETE { ?s <urn:p> "a" } WHERE { ?s <urn:p> "a" }', 'GRAPH <urn:w> { <urn:w> <urn:w> <urn:w> }');
 * // 'DELETE { ?s <urn:p> "a" } INSERT { GRAPH <urn:w> { <urn:w> <urn:w> <urn:w> } } WHERE { ?s <urn:p> "a" }'
 */
export function withInsertedQuads(text: string, quads: string): string | undefined {
  const r = reader(text);
  if (r === undefined || r.prologue() === undefined) return undefined;
  if (r.word('WITH') && r.iri() === undefined) return undefined;
  const slot = templates(r);
  if (slot === undefined || usingClauses(r) === undefined || !r.word('WHERE') || r.group() === undefined || !r.atEnd()) return undefined;
  // A template may end in a triple without its '.': quads that are not triples may follow it.
  const added = slot.inInsert ? ` ${quads} ` : ` INSERT { ${quads} }`;
  return `${text.slice(0, slot.offset)}${added}${text.slice(slot.offset)}`;
}

/**
 * Reads `DELETE {..} [INSERT {..}]` or `INSERT {..}`; where quads can be added to an INSERT
 * template (before its closing brace), or an INSERT clause after the DELETE template; undefined
 * when the templates are not there.
 */
function templates(r: Reader): { offset: number; inInsert: boolean } | undefined {
  if (r.word('DELETE')) {
    if (r.group() === undefined) return undefined;
    if (!r.word('INSERT')) return { offset: r.tokens[r.i - 1]!.end, inInsert: false };
  } else if (!r.word('INSERT')) return undefined;
  if (r.group() === undefined) return undefined;
  return { offset: r.tokens[r.i - 1]!.start, inInsert: true };
}

// `USING [NAMED] iri` clauses as the equivalent `FROM [NAMED] iri` dataset clauses.
function usingClauses(r: Reader): string | undefined {
  let out = '';
  while (r.word('USING')) {
    const named = r.word('NAMED');
    const graph = r.iri();
    if (graph === undefined) return undefined;
    out += `FROM ${named ? 'NAMED ' : ''}${graph} `;
  }
  return out;
}
