import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValueError } from '../../src/errors.js';
import { LIMITS } from '../../src/limits.js';
import {
  EVENT_TRIGGER_WORKFLOW_NAME,
  assertIri,
  buildEventTriggerUrl,
  buildStateEndpoint,
  buildWorkflowEndpoint,
  fromLined,
  iriProblem,
  isIri,
  lined,
  mintCapabilityIri,
  mintOperationIri,
  mintPossessionStateIri,
  mintServiceIri,
  mintStatePropertyIri,
  mintWorkflowIri,
  normalizeAddress,
} from '../../src/iri/index.js';

const R = 'https://example.org/plant#door1';

describe('IRI validation', () => {
  it.each(['https://example.org/x', 'urn:uuid:1234', 'http://h/a_b#c'])('should accept %s', (iri) => {
    expect(isIri(iri)).toBe(true);
  });

  it.each([
    ['a closing bracket', 'http://x/a>b'],
    ['a space', 'http://x/a b'],
    ['a quote', 'http://x/a"b'],
    ['a brace', 'http://x/{a}'],
    ['a backslash', 'http://x/a\\b'],
    ['a newline', 'http://x/a\nb'],
    ['no scheme', 'example.org/x'],
    ['nothing', ''],
  ])('should reject an IRI with %s', (_what, iri) => {
    expect(isIri(iri)).toBe(false);
    expect(() => assertIri(iri, 'resourceIri')).toThrow(ValueError);
    expect(() => assertIri(iri, 'resourceIri')).toThrow(/resourceIri/);
  });

  it('should never accept a string that could end an IRIREF', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const iri = `http://x/${s}`;
        if (isIri(iri)) expect(/[<>"{}|^`\\\s]/u.test(iri)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('should give the same verdict when asked again, also after remembering more IRIs than it keeps', () => {
    const candidates = fc.oneof(
      fc.constantFrom('http://x/a b', 'http://x/%zz', 'http://[::1', 'urn:a:b'),
      fc.string({ unit: 'grapheme' }).map((s) => `http://x/${s}`),
    );
    fc.assert(
      fc.property(candidates, (iri) => {
        const first = iriProblem(iri);
        expect(iriProblem(iri)).toBe(first);
      }),
      { numRuns: 1000 },
    );
    // Past the cache's size it is emptied and keeps working.
    for (let i = 0; i < LIMITS.validIriCacheSize + 10; i++) expect(isIri(`urn:test:cache:${i}`)).toBe(true);
    expect(isIri('http://x/a b')).toBe(false);
    expect(isIri('urn:test:cache:0')).toBe(true);
  });
});

describe('normalizeAddress', () => {
  it('should fold trivially different spellings to one string', () => {
    expect(normalizeAddress('http://LocalHost:8000/')).toBe('http://localhost:8000');
    expect(normalizeAddress('HTTP://localhost:8000')).toBe('http://localhost:8000');
  });

  it('should keep path case, query and fragment', () => {
    expect(normalizeAddress('http://H.example/Some/Path/?q=A#F')).toBe('http://h.example/Some/Path?q=A#F');
  });

  it('should refuse something that is not an absolute URL', () => {
    expect(() => normalizeAddress('localhost:8000/x y')).not.toThrow(); // scheme "localhost" is absolute
    expect(() => normalizeAddress('/relative')).toThrow(ValueError);
  });
  // Expected values are what Python's urlunsplit(urlsplit(...)) gives with the reference's lowercasing and rstrip('/').
  it.each([
    ['http://host:8000/path?', 'http://host:8000/path'],
    ['http://host:8000/path/#', 'http://host:8000/path'],
    ['http://host:8000/path?#', 'http://host:8000/path'],
    ['http://host:8000/path?#f', 'http://host:8000/path#f'],
    ['http://host:8000/path?q#', 'http://host:8000/path?q'],
    ['http://Host:8000?', 'http://host:8000'],
    ['http://H/a/?q=A#', 'http://h/a?q=A'],
    ['http://[::1]:8000', 'http://[::1]:8000'],
  ])('should drop an empty query and fragment as urlunsplit does: %s', (address, normalized) => {
    expect(normalizeAddress(address)).toBe(normalized);
  });

  it('should mint one Service IRI for an address with and without an empty query or fragment', () => {
    const resource = 'https://example.org/plant#door1';
    expect(mintServiceIri(resource, 'http://host:8000/path?')).toBe(mintServiceIri(resource, 'http://host:8000/path'));
    expect(mintServiceIri(resource, 'http://host:8000/path/#')).toBe(mintServiceIri(resource, 'http://host:8000/path'));
  });

  it.each(['http://[::1]:8000', 'http://[FE80::1]:8000/x', 'https://user@[::1]'])(
    'should refuse to mint a Service IRI from the IPv6 literal host of %s, naming what to use instead',
    (address) => {
      expect(() => mintServiceIri('https://example.org/plant#door1', address)).toThrow(
        /IPv6 literal host, which cannot become part of a Service IRI: give the Service an address with a host name \(e\.g\. "http:\/\/localhost:8000"/u,
      );
    },
  );
});

describe('lined', () => {
  it('should mangle exactly as the reference does', () => {
    expect(lined('http://127.0.0.1:8993')).toBe('http_c__s__s_127_d_0_d_0_d_1_c_8993');
    expect(lined('a_b')).toBe('a__b');
  });

  it('should decode strings the reference decoder gets wrong', () => {
    expect(fromLined(lined('_c_'))).toBe('_c_');
    expect(fromLined(lined('a__s_/'))).toBe('a__s_/');
  });

  it('should be an exact inverse for every normalized address', () => {
    const address = fc
      .tuple(
        fc.constantFrom('http', 'https', 'HTTP'),
        fc.domain(),
        fc.option(fc.integer({ min: 1, max: 65535 })),
        fc.webPath(),
        fc.option(fc.webQueryParameters()),
        fc.option(fc.webFragments()),
      )
      .map(([s, h, p, path, q, f]) => `${s}://${h}${p ? `:${p}` : ''}${path}${q ? `?${q}` : ''}${f ? `#${f}` : ''}`);
    fc.assert(
      fc.property(address, (a) => {
        const n = normalizeAddress(a);
        expect(fromLined(lined(n))).toBe(n);
      }),
      { numRuns: 5000 },
    );
  });

  it('should be an exact inverse for every string at all', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('_', ':', '/', '.', '#', 'c', 's', 'd', 'h', 'x') }), (s) => {
        expect(fromLined(lined(s))).toBe(s);
      }),
      { numRuns: 5000 },
    );
  });

  it('should refuse text lined never produces', () => {
    expect(() => fromLined('a_b')).toThrow(ValueError);
    expect(() => fromLined('a_c')).toThrow(ValueError);
  });
});

describe('minting', () => {
  it('should mint the Service IRI as the reference does', () => {
    expect(mintServiceIri(R, 'http://127.0.0.1:8993')).toBe(`${R}_service_http_c__s__s_127_d_0_d_0_d_1_c_8993`);
    expect(mintServiceIri(R, 'http://LOCALHOST:8000/')).toBe(mintServiceIri(R, 'http://localhost:8000'));
  });

  it.each(['ftp://host/x', 'localhost:8000', '127.0.0.1:8000', '', 'http://', 'http://a b'])(
    'should raise ValueError for address %j',
    (address) => {
      expect(() => mintServiceIri(R, address)).toThrow(ValueError);
    },
  );

  it('should read the address back from a Service IRI', () => {
    const iri = mintServiceIri(R, 'http://Gateway.local:8000/door/');
    expect(fromLined(iri.slice(`${R}_service_`.length))).toBe('http://gateway.local:8000/door');
  });

  it('should mint workflow, state and capability IRIs', () => {
    const s = mintServiceIri(R, 'http://127.0.0.1:8000');
    expect(mintWorkflowIri(s, 'open')).toBe(`${s}_workflow_open`);
    expect(mintStatePropertyIri(s, 'door_state')).toBe(`${s}_state_door_state`);
    expect(mintCapabilityIri(R, 'open')).toBe(`${R}_capability_open`);
    expect(() => mintWorkflowIri(s, 'a>b')).toThrow(ValueError);
    expect(() => mintWorkflowIri(s, '')).toThrow(ValueError);
  });

  it('should mint fresh Operation and PossessionState IRIs', () => {
    const a = mintOperationIri('https://example.org/plant#OpenDoor');
    const b = mintOperationIri('https://example.org/plant#OpenDoor');
    expect(a).toMatch(/^https:\/\/example\.org\/plant#OpenDoor_op_[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    expect(mintPossessionStateIri('https://example.org/wp1')).toMatch(/^https:\/\/example\.org\/wp1_possession_[0-9a-f]{12}$/);
    expect(() => mintOperationIri('not an iri')).toThrow(ValueError);
  });
});

describe('endpoint builders', () => {
  it('should build endpoint URLs under the address', () => {
    expect(buildWorkflowEndpoint('http://h:1/', 'open')).toBe('http://h:1/workflows/open/execute');
    expect(buildStateEndpoint('http://h:1', 'door')).toBe('http://h:1/state/door');
    expect(buildEventTriggerUrl('http://h:1')).toBe('http://h:1/workflows/event_trigger/execute');
    expect(EVENT_TRIGGER_WORKFLOW_NAME).toBe('event_trigger');
  });
});

describe('error messages about odd values', () => {
  it('should report an object without a prototype as a ValueError, not fail while printing it', () => {
    const value = Object.create(null) as unknown;
    expect(() => assertIri(value, 'resourceIri')).toThrow(ValueError);
    expect(() => assertIri(value, 'resourceIri')).toThrow('resourceIri "[object Object]" is not a valid absolute IRI');
    expect(() => normalizeAddress(value as string)).toThrow(ValueError);
  });

  it('should refuse an address holding a control character by naming the address, not the IRI minted from it', () => {
    for (const address of ['http://h\u0085', 'http://h:1/a\u0000b', 'http://h/\u009f', 'http://h/\ud800']) {
      expect(() => mintServiceIri(R, address)).toThrow(`address ${JSON.stringify(address)} is not an absolute http(s) URL`);
    }
  });
});
