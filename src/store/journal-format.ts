import { crc32 } from 'node:zlib';

/** The journal's records: what one entry holds, what it is replayed into, and its framing on disk. */

/** One committed write. Loads are journalled as N-Quads so replay never depends on a parser's base IRI. */
export type JournalEntry = { op: 'update'; sparql: string } | { op: 'load'; graph: string; nquads: string };

/** What the journal needs from the store it makes durable. */
export interface JournalTarget {
  loadSnapshot(nquads: string): void;
  replay(entry: JournalEntry): void;
  /** The whole store as N-Quads; called synchronously at the compaction cut. */
  dump(): string;
}

// Frame: `<byte length> <crc32 hex> <json>\n`. JSON.stringify never emits a raw newline and UTF-8
// continuation bytes never equal 0x0a, so one line is one entry and a torn write is a bad last line.
export function encodeEntry(entry: JournalEntry): Buffer {
  const body = Buffer.from(JSON.stringify(entry), 'utf8');
  const head = Buffer.from(`${body.length} ${crc32(body).toString(16).padStart(8, '0')} `, 'latin1');
  return Buffer.concat([head, body, Buffer.from('\n', 'latin1')]);
}

/** Decodes the longest valid prefix of a journal; `validBytes` is where the first bad entry starts. */
export function decodeJournal(buf: Buffer): { entries: JournalEntry[]; validBytes: number } {
  const entries: JournalEntry[] = [];
  let offset = 0;
  for (let end = buf.indexOf(0x0a, offset); end >= 0; end = buf.indexOf(0x0a, offset)) {
    const entry = decodeLine(buf.subarray(offset, end));
    if (!entry) break;
    entries.push(entry);
    offset = end + 1;
  }
  return { entries, validBytes: offset };
}

function decodeLine(line: Buffer): JournalEntry | undefined {
  const head = /^(\d{1,10}) ([0-9a-f]{8}) /u.exec(line.subarray(0, 24).toString('latin1'));
  if (!head) return undefined;
  const body = line.subarray(head[0].length);
  if (body.length !== Number(head[1]) || crc32(body) !== parseInt(head[2]!, 16)) return undefined;
  try {
    const value = JSON.parse(body.toString('utf8')) as Partial<Record<string, unknown>>;
    if (value.op === 'update' && typeof value.sparql === 'string') return value as JournalEntry;
    if (value.op === 'load' && typeof value.graph === 'string' && typeof value.nquads === 'string') return value as JournalEntry;
  } catch {
    // a checksum collision on garbage; treated as a bad entry below
  }
  return undefined;
}
