import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { cli } from './support/cli-process.js';

const REQUEST = [
  'request',
  '--store',
  'memory',
  '--capability',
  'plant:DoorOpeningCapability',
  '--operation-class',
  'plant:OpenDoorOperation',
];
const dir = mkdtempSync(join(tmpdir(), 'sm-request-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('request: the receivers token', () => {
  it('should take an empty SIDECAR_OUTGOING_TOKEN_FILE as unset, like every empty variable', () => {
    const result = cli(REQUEST, { SIDECAR_OUTGOING_TOKEN_FILE: '' });
    // An empty memory store has no receiver: exit 1 for that, not 2 for a token file "".
    expect(result.stderr).not.toContain('--token-file');
    expect(result.stderr).toContain('no reachable Service');
    expect(result.status).toBe(1);
  });

  it('should exit 2 naming a token file whose first line is empty, without its content', () => {
    const file = join(dir, 'empty-token');
    writeFileSync(file, '\nsecret-on-line-two\n');
    const result = cli(REQUEST, { SIDECAR_OUTGOING_TOKEN_FILE: file });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`--token-file ${JSON.stringify(file)} holds an empty first line`);
    expect(result.stderr).not.toContain('secret-on-line-two');
  });
});
