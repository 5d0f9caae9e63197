import { afterEach, describe, expect, it } from '@jest/globals';
import { ActivityFeed } from '../../../src/middleware/runtime/activity-feed.js';
import { createApp, type AppOptions } from '../../../src/middleware/surface/app.js';
import { fakeSurface, jsonOf, serve, type Served } from './support/serve.js';
import { openSse, type Frame, type SseStream } from './support/sse-client.js';
import { EventStreamInterpreter, listenTo, type DispatchedEvent } from '../../support/event-source.js';

async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const seqs = (frames: Frame[]): (string | undefined)[] => frames.map((f) => f.id);

describe('GET /activity and /activity/stream', () => {
  let served: Served | undefined;
  let stream: SseStream | undefined;
  afterEach(async () => {
    stream?.close();
    stream = undefined;
    await served?.close();
    served = undefined;
  });
  const start = async (feed: ActivityFeed | undefined, options: AppOptions = {}): Promise<string> => {
    served = await serve(createApp(fakeSurface(feed ? { activity: feed } : {}), options));
    return served.url;
  };

  it('should answer 404 JSON on both routes when the feed is off', async () => {
    const url = await start(undefined);
    for (const path of ['/activity', '/activity/stream']) {
      const { status, body } = await jsonOf(await fetch(`${url}${path}`));
      expect([path, status]).toEqual([path, 404]);
      expect((body as { detail: string }).detail).toMatch(/activity feed is not enabled/);
    }
  });

  it('should serve pages with after and limit, and the dropped count', async () => {
    const feed = new ActivityFeed(3);
    for (let i = 0; i < 5; i += 1) feed.record('heartbeat', { i });
    const url = await start(feed);
    const all = await jsonOf(await fetch(`${url}/activity`));
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ dropped: 2, lastSeq: 5, entries: [{ seq: 3, i: 2, kind: 'heartbeat' }, { seq: 4 }, { seq: 5 }] });
    const page = await jsonOf(await fetch(`${url}/activity?after=3&limit=1`));
    expect(page.body).toMatchObject({ dropped: 0, lastSeq: 5, entries: [{ seq: 4 }] });
    expect((page.body as { entries: unknown[] }).entries).toHaveLength(1);
  });

  it('should answer 422 naming the parameter for bad numbers', async () => {
    const url = await start(new ActivityFeed(3));
    const cases: [string, string][] = [
      ['after=-1', 'after must be a non-negative integer, got "-1"'],
      ['after=abc', 'after must be a non-negative integer, got "abc"'],
      ['limit=1.5', 'limit must be a non-negative integer, got "1.5"'],
      ['after=1&after=2', 'after must be a non-negative integer, got several values'],
      ['limit=', 'limit must be a non-negative integer, got ""'],
    ];
    for (const [query, detail] of cases) {
      expect(await jsonOf(await fetch(`${url}/activity?${query}`))).toEqual({ status: 422, body: { detail } });
    }
    expect((await jsonOf(await fetch(`${url}/activity/stream?after=x`))).status).toBe(422);
    const badHeader = await fetch(`${url}/activity/stream`, { headers: { 'last-event-id': 'seven' } });
    expect(await jsonOf(badHeader)).toEqual({ status: 422, body: { detail: 'Last-Event-ID must be a non-negative integer, got "seven"' } });
  });

  it('should stream held entries then live ones as SSE frames, and unsubscribe on disconnect', async () => {
    const feed = new ActivityFeed(10);
    feed.record('registered', { service: 'urn:svc' });
    const url = await start(feed);
    stream = await openSse(`${url}/activity/stream?events=named`);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [held] = await stream.take(1);
    expect(held).toMatchObject({ id: '1', event: 'registered' });
    expect(JSON.parse(held!.data!)).toMatchObject({ seq: 1, kind: 'registered', service: 'urn:svc' });
    await until(() => feed.subscriberCount === 1, 'the stream to subscribe');
    feed.record('trigger', { operation: 'urn:op\nevent: forged' });
    feed.record('claim');
    const live = await stream.take(2);
    expect(live.map((f) => [f.id, f.event])).toEqual([
      ['2', 'trigger'],
      ['3', 'claim'],
    ]);
    expect((JSON.parse(live[0]!.data!) as { operation: unknown }).operation).toBe('urn:op\nevent: forged');
    stream.close();
    await until(() => feed.subscriberCount === 0, 'the subscription to be removed');
  });

  it('should resume after Last-Event-ID or ?after=, with a dropped marker first when entries are gone', async () => {
    const feed = new ActivityFeed(3);
    for (let i = 0; i < 6; i += 1) feed.record('heartbeat');
    const url = await start(feed);
    stream = await openSse(`${url}/activity/stream?events=named`, { 'last-event-id': '1' });
    const resumed = await stream.take(4);
    expect(resumed[0]!.event).toBe('dropped');
    expect(resumed[0]!.id).toBeUndefined();
    expect(JSON.parse(resumed[0]!.data!)).toEqual({ dropped: 2 });
    expect(seqs(resumed.slice(1))).toEqual(['4', '5', '6']);
    stream.close();
    stream = await openSse(`${url}/activity/stream?after=5`);
    feed.record('done');
    expect(seqs(await stream.take(2))).toEqual(['6', '7']);
    stream.close();
    // Last-Event-ID wins over ?after= (EventSource sends it on reconnect to the same URL).
    stream = await openSse(`${url}/activity/stream?after=1&events=named`, { 'last-event-id': '6' });
    const [first] = await stream.take(1);
    expect(first).toMatchObject({ id: '7', event: 'done' });
  });

  it('should not send a dropped marker to a new client without a resume point', async () => {
    const feed = new ActivityFeed(2);
    for (let i = 0; i < 5; i += 1) feed.record('sweep');
    const url = await start(feed);
    stream = await openSse(`${url}/activity/stream?events=named`);
    const frames = await stream.take(2);
    expect(frames.map((f) => f.event)).toEqual(['sweep', 'sweep']);
    expect(seqs(frames)).toEqual(['4', '5']);
  });

  it('should send heartbeat comments while idle', async () => {
    const url = await start(new ActivityFeed(2), { activityHeartbeatMs: 40 });
    stream = await openSse(`${url}/activity/stream`);
    const frame = await stream.next(2000);
    expect(frame).toEqual({ comment: 'keep-alive' });
  });

  it('should end the stream when the feed closes', async () => {
    const feed = new ActivityFeed(2);
    const url = await start(feed);
    stream = await openSse(`${url}/activity/stream?events=named`);
    await until(() => feed.subscriberCount === 1, 'the stream to subscribe');
    feed.record('stopped');
    feed.close();
    expect(await stream.take(1)).toMatchObject([{ event: 'stopped' }]);
    expect(await stream.next()).toBeUndefined();
  });

  it('should cut a client that stops reading once its buffer passes the limit, not one that reads', async () => {
    const feed = new ActivityFeed(5);
    const url = await start(feed, { activityMaxBufferedBytes: 64 * 1024 });
    stream = await openSse(`${url}/activity/stream`);
    const reading = await fetch(`${url}/activity/stream`);
    let read = 0;
    const drained = (async () => {
      for await (const chunk of reading.body!) read += (chunk as Uint8Array).length;
    })();
    await until(() => feed.subscriberCount === 2, 'both streams to subscribe');
    const pad = 'p'.repeat(8 * 1024);
    for (let i = 0; i < 4; i += 1) feed.record('heartbeat', { pad });
    await new Promise((r) => setTimeout(r, 20));
    expect(feed.subscriberCount).toBe(2);
    // `stream` reads nothing: kernel buffers fill, then the server's queue, then it is cut.
    let sent = 0;
    while (feed.subscriberCount === 2 && sent < 4000) {
      feed.record('heartbeat', { pad });
      sent += 1;
      await new Promise((r) => setImmediate(r));
    }
    expect(feed.subscriberCount).toBe(1);
    await until(() => read >= (sent + 4) * pad.length, 'the reading client to receive everything');
    await served!.close();
    served = undefined;
    await drained.catch(() => undefined);
  });
});

describe('GET /activity/stream for EventSource.onmessage', () => {
  let served: Served | undefined;
  let close: (() => void) | undefined;
  afterEach(async () => {
    close?.();
    await served?.close();
  });

  it('should deliver every entry, and the dropped marker, to a client listening only to message events', async () => {
    const feed = new ActivityFeed(3);
    for (let i = 0; i < 5; i += 1) feed.record('heartbeat');
    served = await serve(createApp(fakeSurface({ activity: feed })));
    const messages: DispatchedEvent[] = [];
    close = await listenTo(`${served.url}/activity/stream?after=1`, 'message', (event) => messages.push(event));
    await until(() => feed.subscriberCount === 1, 'the stream to subscribe');
    feed.record('done', { operation: 'urn:op' });
    await until(() => messages.length === 5, 'five messages');
    expect(messages.map((m) => JSON.parse(m.data) as { kind: string })).toMatchObject([
      { kind: 'dropped', dropped: 1 },
      { kind: 'heartbeat', seq: 3 },
      { kind: 'heartbeat', seq: 4 },
      { kind: 'heartbeat', seq: 5 },
      { kind: 'done', seq: 6, operation: 'urn:op' },
    ]);
    expect(messages.at(-1)!.lastEventId).toBe('6');
  });

  it('should refuse an unknown events value with 422', async () => {
    served = await serve(createApp(fakeSurface({ activity: new ActivityFeed(2) })));
    expect(await jsonOf(await fetch(`${served.url}/activity/stream?events=all`))).toEqual({
      status: 422,
      body: { detail: 'events must be "message" or "named", got "all"' },
    });
  });
});

describe('EventStreamInterpreter', () => {
  it('should follow the HTML rules: CR/LF/CRLF, BOM, joined data, empty events skipped, named types', () => {
    const interpreter = new EventStreamInterpreter();
    const events = [
      ...interpreter.push('\uFEFFid: 1\r\ndata: a\r'),
      ...interpreter.push('\ndata:b\n\nevent: done\ndata\n\n: comment\n\nevent: x\n\r'),
    ];
    expect(events).toEqual([
      { type: 'message', data: 'a\nb', lastEventId: '1' },
      { type: 'done', data: '', lastEventId: '1' },
    ]);
  });
});
