/**
 * Just enough of a SPARQL lexer for the SPARQL server: which form a query has, and the WHERE
 * clause of a single DELETE/INSERT operation. Not a parser: it finds token boundaries (strings,
 * IRIs, comments, braces) and leaves every judgement of validity to the store, which parses
 * the request itself. Whatever it does not recognise makes it give up (`undefined`).
 */

/** The query forms of SPARQL 1.1. */
export type QueryForm = 'SELECT' | 'ASK' | 'CONSTRUCT' | 'DESCRIBE';

const QUERY_FORMS: readonly string[] = ['SELECT', 'ASK', 'CONSTRUCT', 'DESCRIBE'];
// SPARQL's IRIREF; a `<` that does not start one is the less-than operator.
// eslint-disable-next-line no-control-regex -- the grammar excludes control characters from an IRI
const IRIREF = /<[^<>"{}|^`\\\u0000-\u0020]*>/uy;
const PNAME_NS = /[^\s:<>{}()"'#;,]*:/uy;
const PNAME = /[^\s:<>{}()"'#;,]*:(?:\\.|[^\s<>{}()"'#;,\\])*/uy;
// A keyword is a run of letters not followed by a name character (`prefix:x` is not PREFIX).
const WORD = /[A-Za-z]+(?![\w:-])/uy;
const SPACE = /(?:\s+|#[^\n\r]*)*/uy;

class Scanner {
  pos = 0;
  constructor(private readonly text: string) {}

  match(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) return undefined;
    this.pos = re.lastIndex;
    return m[0];
  }

  space(): void {
    this.match(SPACE);
  }

  /** The next keyword, upper-cased, consumed; undefined (nothing consumed) when none follows. */
  word(): string | undefined {
    const start = this.pos;
    this.space();
    const word = this.match(WORD)?.toUpperCase();
    if (word === undefined) this.pos = start;
    return word;
  }

  peekWord(): string | undefined {
    const start = this.pos;
    const word = this.word();
    this.pos = start;
    return word;
  }

  /** An IRI written as `<...>` or as a prefixed name, as written. */
  iri(): string | undefined {
    this.space();
    return this.match(IRIREF) ?? this.match(PNAME);
  }

  /** The end of the prologue (PREFIX and BASE declarations and the space after them). */
  prologue(): number | undefined {
    for (;;) {
      const start = this.pos;
      const word = this.word();
      if (word === 'PREFIX') {
        this.space();
        if (this.match(PNAME_NS) === undefined) return undefined;
      } else if (word !== 'BASE') {
        this.pos = start;
        this.space();
        return this.pos;
      }
      this.space();
      if (this.match(IRIREF) === undefined) return undefined;
    }
  }

  /** A balanced `{ ... }` group, as written; undefined when none starts here or it never ends. */
  group(): string | undefined {
    this.space();
    if (this.text[this.pos] !== '{') return undefined;
    const start = this.pos;
    let depth = 0;
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos]!;
      if (ch === '{' || ch === '}') {
        depth += ch === '{' ? 1 : -1;
        this.pos += 1;
        if (depth === 0) return this.text.slice(start, this.pos);
      } else if (ch === '"' || ch === "'") {
        if (!this.skipString(ch)) return undefined;
      } else if (ch === '<') {
        if (this.match(IRIREF) === undefined) this.pos += 1;
      } else if (ch === '#') {
        this.space();
      } else {
        // A backslash outside strings escapes one character of a prefixed name (`ex:a\#b`).
        this.pos += ch === '\\' ? 2 : 1;
      }
    }
    return undefined;
  }

  // SPARQL strings: "..." and '...' (one line) and """...""" and '''...''', with \ escapes.
  // The content of a long string cannot end with its quote, so the first closing triple ends it.
  private skipString(quote: string): boolean {
    const long = this.text.startsWith(quote.repeat(3), this.pos);
    const end = long ? quote.repeat(3) : quote;
    this.pos += end.length;
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos]!;
      if (ch === '\\') this.pos += 2;
      else if (this.text.startsWith(end, this.pos)) {
        this.pos += end.length;
        return true;
      } else if (!long && (ch === '\n' || ch === '\r')) return false;
      else this.pos += 1;
    }
    return false;
  }

  /** True when only space, comments and at most one `;` are left. */
  atEnd(): boolean {
    this.space();
    if (this.text[this.pos] === ';') this.pos += 1;
    this.space();
    return this.pos === this.text.length;
  }
}

/**
 * The form of a query (its first keyword after the prologue), or undefined when it starts with
 * something else; the store then tells what is wrong with it.
 * @example queryForm('PREFIX svc: <https://w3id.org/circularfactory/Service#> ASK { ?s a svc:Service }'); // 'ASK'
 */
export function queryForm(query: string): QueryForm | undefined {
  const scanner = new Scanner(query);
  if (scanner.prologue() === undefined) return undefined;
  const word = scanner.word();
  return word !== undefined && QUERY_FORMS.includes(word) ? (word as QueryForm) : undefined;
}

/**
 * An ASK that holds exactly when the WHERE clause of `update` has a solution, for an update
 * that is one `DELETE ... INSERT ... WHERE`, `DELETE WHERE` or `INSERT ... WHERE` operation;
 * undefined for anything else (`INSERT DATA`, `DROP`, several operations, unrecognised text).
 *
 * The ASK is made of the update's own text: its prologue, its WHERE group, and its dataset
 * (`USING` as `FROM`, or else `WITH` as `FROM`), so it is evaluated exactly as the update's
 * WHERE is. Nothing but the request's own text goes into it.
 * @example
 * updateWhereAsk('DELETE { ?s <urn:p> "a" } INSERT { ?s <urn:p> "b" } WHERE { ?s <urn:p> "a" }');
 * // 'ASK WHERE { ?s <urn:p> "a" }'
 */
export function updateWhereAsk(update: string): string | undefined {
  const scanner = new Scanner(update);
  const prologueEnd = scanner.prologue();
  if (prologueEnd === undefined) return undefined;
  const prologue = update.slice(0, prologueEnd);
  let word = scanner.word();
  if (word === 'DELETE' && scanner.peekWord() === 'WHERE') {
    scanner.word();
    const pattern = scanner.group();
    return pattern !== undefined && scanner.atEnd() ? `${prologue}ASK WHERE ${pattern}` : undefined;
  }
  let dataset = '';
  if (word === 'WITH') {
    const graph = scanner.iri();
    if (graph === undefined) return undefined;
    dataset = `FROM ${graph} `;
    word = scanner.word();
  }
  if (!templates(scanner, word)) return undefined;
  const using = usingClauses(scanner);
  if (using === undefined) return undefined;
  if (scanner.word() !== 'WHERE') return undefined;
  const where = scanner.group();
  if (where === undefined || !scanner.atEnd()) return undefined;
  return `${prologue}ASK ${using || dataset}WHERE ${where}`;
}

// `DELETE {..} [INSERT {..}]` or `INSERT {..}`; the DATA forms have no group right after the keyword.
function templates(scanner: Scanner, word: string | undefined): boolean {
  if (word === 'DELETE') {
    if (scanner.group() === undefined) return false;
    if (scanner.peekWord() !== 'INSERT') return true;
    scanner.word();
  } else if (word !== 'INSERT') return false;
  return scanner.group() !== undefined;
}

// `USING [NAMED] iri` clauses as the equivalent `FROM [NAMED] iri` dataset clauses.
function usingClauses(scanner: Scanner): string | undefined {
  let out = '';
  while (scanner.peekWord() === 'USING') {
    scanner.word();
    const named = scanner.peekWord() === 'NAMED';
    if (named) scanner.word();
    const graph = scanner.iri();
    if (graph === undefined) return undefined;
    out += `FROM ${named ? 'NAMED ' : ''}${graph} `;
  }
  return out;
}
