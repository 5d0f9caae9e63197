import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

// Every SPARQL text lives in src/queries/ (and the store implementation in src/store/, which
// keeps the protocol-level texts it needs itself, e.g. dumps): this source scan keeps it so.
const SRC = join(process.cwd(), 'src');
const ALLOWED = ['queries', 'store'];

/** Things that only SPARQL text (or building it) contains. */
const SPARQL_TEXT: readonly RegExp[] = [
  /\bsparql`/u,
  /\b(SELECT|CONSTRUCT|DESCRIBE)\s+(DISTINCT\s+|REDUCED\s+)?[?(*]/u,
  /\b(ASK|WHERE)\s*\{/u,
  /\b(INSERT|DELETE)(\s+DATA)?\s*\{/u,
  /\b(CLEAR|DROP)\s+(SILENT\s+)?GRAPH\b/u,
  // The builders themselves: only a type may be imported (the OGM takes a built match fragment).
  /^import\s+(?!type\b)[^;]*from\s+'[./]*store\/sparql\.js'/mu,
];

/** The source without comments, which may quote SPARQL to explain it. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//gu, '').replace(/(^|[^:'"`\\])\/\/.*$/gmu, '$1');
}

/** Lines of `text` that build SPARQL, as `line: text`. */
function sparqlLines(text: string): string[] {
  return code(text)
    .split('\n')
    .flatMap((line, i) => (SPARQL_TEXT.some((p) => p.test(line)) ? [`${i + 1}: ${line.trim()}`] : []));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('query layer', () => {
  it('should find SPARQL text and builders in a sample, but not in comments', () => {
    expect(sparqlLines('const q = sparql`ASK { ?s ?p ?o }`;')).toHaveLength(1);
    expect(sparqlLines("store.select('SELECT ?s WHERE { ?s ?p ?o }');")).toHaveLength(1);
    expect(sparqlLines('const u = `DELETE DATA { ${x} }`;')).toHaveLength(1);
    expect(sparqlLines('await store.update(`CLEAR SILENT GRAPH ${g}`);')).toHaveLength(1);
    expect(sparqlLines("import { sparql } from '../store/sparql.js';")).toHaveLength(1);
    expect(sparqlLines("import type { SparqlFragment } from '../store/sparql.js';")).toEqual([]);
    expect(sparqlLines('/** One `INSERT DATA { .. }`, see `SELECT ?s`. */\n// ASK { }\nconst url = "http://x"; // WHERE {')).toEqual([]);
  });

  it('should build no SPARQL outside src/queries and src/store', () => {
    const offending = sourceFiles(SRC)
      .filter((path) => !ALLOWED.includes(relative(SRC, path).split(sep)[0]!))
      .flatMap((path) => sparqlLines(readFileSync(path, 'utf8')).map((line) => `${relative(SRC, path)}:${line}`));
    expect(offending).toEqual([]);
  });
});
