import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { readLimited } from '../../src/lib/read-limited.js';

/** A body that yields `chunks` on the next turns, then ends (or not, with `end: false`). */
function bodyOf(chunks: string[], { end = true } = {}): PassThrough {
  const body = new PassThrough();
  setImmediate(() => {
    for (const chunk of chunks) body.write(chunk);
    if (end) body.end();
  });
  return body;
}

describe('readLimited', () => {
  it('should join the chunks of a body within the limit', async () => {
    const read = await readLimited({ headers: {}, body: bodyOf(['{"a":', '1}']) }, 100);
    expect([read.bytes.toString(), read.complete]).toEqual(['{"a":1}', true]);
  });

  it('should refuse a body from its declared length without reading it', async () => {
    const body = bodyOf(['x'.repeat(50)]);
    const read = await readLimited({ headers: { 'content-length': '50' }, body }, 10);
    expect([read.bytes.length, read.complete, body.destroyed]).toEqual([0, false, true]);
  });

  it('should keep the first maxBytes of a longer body that declared no length, and stop reading it', async () => {
    const body = bodyOf(['abcdef', 'ghijkl', 'mnop']);
    const read = await readLimited({ headers: {}, body }, 8);
    expect([read.bytes.toString(), read.complete, body.destroyed]).toEqual(['abcdefgh', false, true]);
  });

  it("should reject with the body's error", async () => {
    const body = bodyOf(['abc'], { end: false });
    setTimeout(() => body.destroy(new Error('reset by peer')), 20);
    await expect(readLimited({ headers: {}, body }, 100)).rejects.toThrow('reset by peer');
  });

  it('should reject a body whose connection closed before it ended', async () => {
    const body = bodyOf(['abc'], { end: false });
    setTimeout(() => body.destroy(), 20);
    await expect(readLimited({ headers: {}, body }, 100)).rejects.toThrow('the connection closed before the answer was complete');
  });
});
