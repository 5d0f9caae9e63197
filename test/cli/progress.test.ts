import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { PROGRESS_BAR_MIN_BYTES, progressBars } from '../../src/cli/progress.js';

function terminal(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY, columns: 80, text: () => chunks.join('') });
}

function load(onProgress: ReturnType<typeof progressBars>, bytes: number): void {
  onProgress({ phase: 'start', name: 'big.ttl', path: '/tmp/big.ttl', graph: 'urn:g', bytes });
  onProgress({ phase: 'write', name: 'big.ttl', written: 50_000 });
  onProgress({
    phase: 'done',
    report: { name: 'big.ttl', path: '/tmp/big.ttl', graph: 'urn:g', hash: 'sha256:0', status: 'loaded', bytes, triples: 50_000, ms: 1 },
  });
}

describe('progressBars', () => {
  it('should draw a bar for a large file on a terminal', () => {
    const stream = terminal(true);
    load(progressBars(stream), PROGRESS_BAR_MIN_BYTES * 2);
    expect(stream.text()).toContain('big.ttl');
  });

  it('should draw nothing for a small file', () => {
    const stream = terminal(true);
    load(progressBars(stream), 1000);
    expect(stream.text()).toBe('');
  });

  it('should draw nothing when the stream is not a terminal', () => {
    const stream = terminal(false);
    load(progressBars(stream), PROGRESS_BAR_MIN_BYTES * 2);
    expect(stream.text()).toBe('');
  });
});
