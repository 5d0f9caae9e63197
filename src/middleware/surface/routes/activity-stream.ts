/**
 * `GET /activity/stream`: the activity feed as server-sent events, resumable.
 */
import type { Express, Request, Response } from 'express';
import type { ActivityEntry, ActivityFeed } from '../../runtime/activity-feed.js';
import { parseCount } from '../params.js';
import type { HttpSurface } from '../contract.js';
import { feedOf } from './activity.js';
import { methodNotAllowed } from '../../../http/error-handler.js';
import { HttpError } from '../../../http/http-error.js';
import { preview } from '../../../iri/validate.js';

/** Options of {@link mountActivityStream}. */
export interface ActivityStreamOptions {
  /** Interval of keep-alive comment lines. */
  heartbeatMs: number;
  /** Bytes queued for a client that does not read before its stream is cut. */
  maxBufferedBytes: number;
}

const HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  // Tells nginx-style proxies not to buffer the stream.
  'X-Accel-Buffering': 'no',
};

/**
 * One SSE frame; JSON.stringify never emits a raw line break, so `data:` stays one line. Unnamed
 * (an EventSource delivers it to `onmessage`; the JSON's `kind` says what happened) unless
 * `named`, which adds `event: <kind>` for clients listening per kind.
 */
export function entryFrame(entry: ActivityEntry, named = false): string {
  let data: string;
  try {
    data = JSON.stringify(entry);
  } catch {
    data = JSON.stringify({ seq: entry.seq, time: entry.time, kind: entry.kind, error: 'details are not JSON-serializable' });
  }
  return named ? `id: ${entry.seq}\nevent: ${entry.kind}\ndata: ${data}\n\n` : `id: ${entry.seq}\ndata: ${data}\n\n`;
}

/** Where a client resumes: `Last-Event-ID` (set by EventSource on reconnect) wins over `?after=`. */
function resumePoint(req: Request): number | undefined {
  return parseCount(req.headers['last-event-id'], 'Last-Event-ID') ?? parseCount(req.query.after, 'after');
}

/** True for `?events=named`: frames carry `event: <kind>`; else every frame is an unnamed `message`. */
function namedEvents(req: Request): boolean {
  const events = req.query.events;
  if (events === undefined || events === 'message') return false;
  if (events === 'named') return true;
  throw new HttpError(422, `events must be "message" or "named", got ${preview(events)}`);
}

function open(res: Response, feed: ActivityFeed, at: { after: number | undefined; named: boolean }, options: ActivityStreamOptions): void {
  const { after, named } = at;
  // Frames are sent together once per turn of the event loop: one write for all the entries of
  // a busy moment rather than one each (a stream client added 18% to a proxied call's CPU).
  let pending = '';
  const flush = (): void => {
    const frames = pending;
    pending = '';
    if (frames !== '' && !res.writableEnded && !res.destroyed) res.write(frames);
  };
  const write = (frame: string): void => {
    if (res.writableEnded || res.destroyed) return;
    if (pending === '') setImmediate(flush);
    pending += frame;
    // A client that stopped reading is cut off rather than buffered without bound; it resumes
    // with Last-Event-ID and is told what it missed.
    if (res.writableLength + pending.length > options.maxBufferedBytes) res.destroy();
  };
  const backlog = feed.entries({ after: after ?? 0 });
  if (after !== undefined && backlog.dropped > 0) {
    const dropped = named
      ? `event: dropped\ndata: ${JSON.stringify({ dropped: backlog.dropped })}`
      : `data: ${JSON.stringify({ kind: 'dropped', dropped: backlog.dropped })}`;
    write(`${dropped}\n\n`);
  }
  for (const entry of backlog.entries) write(entryFrame(entry, named));
  // Nothing awaited since the backlog was read, so no entry can fall between it and the subscription.
  const unsubscribe = feed.subscribe((entry) => write(entryFrame(entry, named)), {
    onClose: () => {
      flush();
      res.end();
    },
  });
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), options.heartbeatMs);
  heartbeat.unref();
  res.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
}

/**
 * Mounts the stream: each entry as `id: <seq>` and `data: <json>` (the entry, whose `kind` says
 * what happened), so a browser's `EventSource.onmessage` receives every one; with
 * `?events=named` each frame also carries `event: <kind>`, for `addEventListener(kind)`. A client
 * resuming (`Last-Event-ID` or `?after=`) gets the held entries after that point, preceded by
 * `{"kind": "dropped", "dropped": n}` (named: `event: dropped` with `{"dropped": n}`) when some
 * it never saw are gone; a new client gets
 * every held entry. Then live entries, and a comment line every `heartbeatMs`. The stream ends
 * when the feed closes; the subscription ends when the client goes away. 422 for a bad resume
 * point or `events` value, 404 when the feed is off.
 */
export function mountActivityStream(app: Express, surface: HttpSurface, options: ActivityStreamOptions): void {
  app.get('/activity/stream', (req, res) => {
    const feed = feedOf(surface);
    const at = { after: resumePoint(req), named: namedEvents(req) };
    res.status(200).set(HEADERS);
    res.flushHeaders();
    open(res, feed, at, options);
  });
  app.all('/activity/stream', methodNotAllowed('GET'));
}
