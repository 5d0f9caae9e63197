/**
 * A lane (a listener that serves some requests without express) held to its express app: both
 * listen on loopback, and each request is sent raw to both, to compare what a client can tell.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { rawRequest, type RawAnswer } from '../fuzz/support/raw-http.js';

/** What a client can tell of an answer: everything but the Date header. */
function comparable(answer: RawAnswer): { status: number | undefined; headers: string[]; body: string } {
  const headers = answer.head
    .split('\r\n')
    .slice(1)
    .filter((h) => !/^date:/i.test(h))
    .map((h) => h.toLowerCase())
    .sort();
  return { status: answer.status, headers, body: answer.body };
}

async function listenOn(listener: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The two servers of a describe block, started before its tests and closed after them. */
export interface LaneComparison {
  /** The lane's port (what it hands on goes to the app). */
  readonly lanePort: number;
  /** Sends `request` to both: the lane answers it itself, with the bytes express sends. */
  expectServedByLane(request: Buffer): Promise<RawAnswer>;
  /** Sends `request` to both: the lane hands it to express, whose answer is the same. */
  expectHandedToExpress(request: Buffer): Promise<void>;
}

/**
 * Serves `app` alone and behind `lane(app)`, counting what the lane hands to `app`. Call it in a
 * describe block: it registers the hooks that start and close both servers.
 */
export function laneComparison(app: RequestListener, lane: (app: RequestListener) => RequestListener): LaneComparison {
  let expressCalls = 0;
  let viaExpress: { server: Server; port: number };
  let viaLane: { server: Server; port: number };
  beforeAll(async () => {
    viaExpress = await listenOn(app);
    viaLane = await listenOn(
      lane((req, res) => {
        expressCalls += 1;
        app(req, res);
      }),
    );
  });
  afterAll(async () => {
    for (const { server } of [viaExpress, viaLane]) await new Promise((resolve) => server.close(resolve));
  });
  const compared = async (request: Buffer, handedOn: number): Promise<RawAnswer> => {
    const before = expressCalls;
    const answer = await rawRequest({ port: viaLane.port }, request);
    expect(expressCalls).toBe(before + handedOn);
    expect(comparable(answer)).toEqual(comparable(await rawRequest({ port: viaExpress.port }, request)));
    return answer;
  };
  return {
    get lanePort() {
      return viaLane.port;
    },
    expectServedByLane: (request) => compared(request, 0),
    expectHandedToExpress: async (request) => void (await compared(request, 1)),
  };
}
