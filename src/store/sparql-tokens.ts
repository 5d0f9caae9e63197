/**
 * SPARQL text cut into tokens, for the store server's quick reading of a request
 * (`sparql-server-scan.ts`): strings, IRIs, comments, variables, prefixed names, words and
 * braces, so that a keyword or a brace inside any of them is never taken for one. Space and
 * comments are dropped.
 *
 * [SPARQL 1.1 grammar, terminals](https://www.w3.org/TR/sparql11-query/#terminals)
 */

// One token: space or a comment, an IRI, a string (long ones first), a variable, a language tag,
// a prefixed name or blank node label, a bare word, a run of other name characters, one other
// character. A `<` that starts no IRI is the less-than operator. A long string ends at the first
// closing triple quote, as the grammar's ( '"' | '""' )? ( [^"\] | ECHAR ) content requires.
export const SPARQL_TOKEN = new RegExp(
  [
    String.raw`(?<space>\s+|#[^\n\r]*)`,
    String.raw`(?<iri><[^<>"{}|^\x60\\\u0000-\u0020]*>)`,
    String.raw`(?<string>"""(?:[^"\\]|\\[^]|"(?!""))*"""|'''(?:[^'\\]|\\[^]|'(?!''))*'''|"(?:[^"\\\n\r]|\\[^])*"|'(?:[^'\\\n\r]|\\[^])*')`,
    String.raw`(?<open>["'])`,
    String.raw`[?$][\p{L}\p{N}\p{M}_\u00B7\u203F-\u2040]*`,
    String.raw`@[A-Za-z]+(?:-[A-Za-z0-9]+)*`,
    String.raw`(?<pname>[^\s:<>{}()\[\]"'#;,]*:(?:\\[^]|[^\s<>{}()\[\]"'#;,\\])*)`,
    String.raw`(?<word>[A-Za-z]+(?![\p{L}\p{N}_:-]))`,
    String.raw`[\p{L}\p{N}_]+`,
    String.raw`[^]`,
  ].join('|'),
  'uy',
);

/** A token: a keyword (upper-cased), an IRI, a prefixed name, or anything else (braces included). */
export interface SparqlToken {
  kind: 'word' | 'iri' | 'pname' | 'other';
  text: string;
  start: number;
  end: number;
}

// Character classes of the quick paths in `sparqlTokens`, by char code (ASCII only).
const ASCII_SPACE = charSet(' \t\n\r');
// Characters no prefixed name, word or name run contains: what ends an ASCII word.
const DELIMITER = charSet(' \t\n\r<>{}()[]"\'#;,');
// Tokens of one character that start no longer token.
const PUNCTUATION = charSet('{}()[];,');
// Characters that end an IRI (or, other than `>`, make the `<` no IRI).
const IRI_END = charSet('<>"{}|^`\\');
// Characters that start no token of their own but a prefixed name, else stand alone: `.`, `^`,
// `=`, `&&`, `||`, ... And what ends a prefixed name's part before its ':' (a ':' included).
const LONE = charSet('!%&*+-./=^|~`\\');
const NAME_PREFIX_END = charSet(' \t\n\r\v\f:<>{}()[]"\'#;,');

function charSet(chars: string): Uint8Array {
  const set = new Uint8Array(128);
  for (const c of chars) set[c.charCodeAt(0)] = 1;
  return set;
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isNameChar = (c: number): boolean => isLetter(c) || (c >= 48 && c <= 57) || c === 95;

/**
 * The tokens of `text`. The common ASCII tokens (space, IRIs, braces, operators, strings without
 * escapes, variables, keywords) are read by hand, each exactly as {@link SPARQL_TOKEN} would read
 * it there; anything else (other strings, comments, prefixed names, non-ASCII text) by the
 * expression. By hand a 2.7 KB update takes a fraction of the expression's time, and each
 * compare-and-set on the embedded store lexes (a claim: 16 µs with operators and strings left
 * to the expression, 10.5 µs without).
 */
export function sparqlTokens(text: string): SparqlToken[] | undefined {
  const tokens: SparqlToken[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128 && ASCII_SPACE[c] === 1) {
      i += 1;
      continue;
    }
    const end = quickToken(text, i, c);
    if (end > 0) {
      const word = isLetter(c);
      tokens.push({
        kind: word ? 'word' : c === 60 ? 'iri' : 'other',
        text: word ? text.slice(i, end).toUpperCase() : text.slice(i, end),
        start: i,
        end,
      });
      i = end;
      continue;
    }
    SPARQL_TOKEN.lastIndex = i;
    const m = SPARQL_TOKEN.exec(text)!;
    const g = m.groups!;
    if (g.open !== undefined) return undefined;
    i = SPARQL_TOKEN.lastIndex;
    if (g.space !== undefined) continue;
    const kind = g.word !== undefined ? 'word' : g.iri !== undefined ? 'iri' : g.pname !== undefined ? 'pname' : 'other';
    tokens.push({ kind, text: kind === 'word' ? m[0].toUpperCase() : m[0], start: m.index, end: i });
  }
  return tokens;
}

/**
 * The end of the token starting at `i` (whose char code is `c`) when it is an IRI, a one
 * character punctuation or operator token, a short string, an ASCII variable or an ASCII
 * keyword; 0 when the expression must read it.
 */
function quickToken(text: string, i: number, c: number): number {
  if (c < 128 && PUNCTUATION[c] === 1) return i + 1;
  if (c === 62) return i + 1;
  if (c < 128 && LONE[c] === 1) return loneEnd(text, i);
  if (c === 34) return stringEnd(text, i);
  if (c === 60) {
    // An IRI runs to the first '>', unless a character no IRI holds comes first.
    for (let j = i + 1; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 62) return j + 1;
      if (d <= 32 || (d < 128 && IRI_END[d] === 1)) return 0;
    }
    return 0;
  }
  if (c === 63 || c === 36) {
    let j = i + 1;
    while (j < text.length && isNameChar(text.charCodeAt(j))) j++;
    // A non-ASCII character may continue the variable: the expression knows its classes.
    return j < text.length && text.charCodeAt(j) >= 128 ? 0 : j;
  }
  if (isLetter(c)) {
    let j = i + 1;
    while (j < text.length && isLetter(text.charCodeAt(j))) j++;
    // A keyword ends at a delimiter; a ':', a digit, '-' or anything else may make it a longer token.
    if (j === text.length) return j;
    const d = text.charCodeAt(j);
    return d < 128 && DELIMITER[d] === 1 ? j : 0;
  }
  return 0;
}

/** `i + 1` when the character at `i` stands alone: what follows up to a delimiter is no prefix of a prefixed name. */
function loneEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d >= 128) return 0;
    if (NAME_PREFIX_END[d] === 1) return d === 58 ? 0 : i + 1;
  }
  return i + 1;
}

/** The end of a `"..."` string without escapes or line breaks; 0 for any other (`""`, `"""`, unterminated). */
function stringEnd(text: string, i: number): number {
  if (text.charCodeAt(i + 1) === 34) return 0;
  for (let j = i + 1; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 34) return j + 1;
    if (d === 92 || d === 10 || d === 13) return 0;
  }
  return 0;
}
