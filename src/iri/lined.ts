import { ValueError } from '../errors.js';
import { preview } from './validate.js';

// `_` is escaped first so that every `_` in the output starts a two- or three-character token;
// that makes the encoding a prefix code, and decoding left to right exact for every string.
const ENCODE: Readonly<Record<string, string>> = { _: '__', ':': '_c_', '/': '_s_', '.': '_d_', '#': '_h_' };
const DECODE: Readonly<Record<string, string>> = { c: ':', s: '/', d: '.', h: '#' };

/** Mangles a string into IRI-segment-safe text, as the Python reference's `IRI.lined` does. */
export function lined(text: string): string {
  return text.replace(/[_:/.#]/gu, (ch) => ENCODE[ch]!);
}

/**
 * Reads back what {@link lined} wrote. Exact for every string, unlike the reference's decoder.
 * @throws ValueError when `text` is not something `lined` can produce.
 */
export function fromLined(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== '_') {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === '_') {
      out += '_';
      i += 1;
    } else if (next !== undefined && DECODE[next] !== undefined && text[i + 2] === '_') {
      out += DECODE[next];
      i += 2;
    } else {
      throw new ValueError(`${preview(text)} is not a lined string: stray "_" at position ${i}`);
    }
  }
  return out;
}
