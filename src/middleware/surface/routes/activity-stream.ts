/**
 * `GET /activity/stream`: the activity feed as server-sent events, resumable.
 */
import type { Express, Request, Response } from 'express';
import type { ActivityEntry, ActivityFeed } from '../../runtime/activity-feed.js';
import { parseCount } from '../params.js';
import type { HttpSurface } from '../contract.js';
import { feedOf } from './activity.js';
import { methodNotAllowed } from '../../../http/error-handler.js';

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

/** One SSE frame; JSON.stringify never emits a raw line break, so `data:` stays one line. */
export function entryFrame(entry: ActivityEntry): string {
  let data: string;
  try {
    data = JSON.stringify(entry);
  } catch {
    data = JSON.stringify({ seq: entry.seq, time: entry.time, kind: entry.kind, error: 'details are not JSON-serializable' });
  }
  return `id: ${entry.seq}\nevent: ${entry.kind}\ndata: ${data}\n\n`;
}

/** Where a client resumes: `Last-Event-ID` (set by EventSource on reconnect) wins over `?after=`. */
function resumePoint(req: Request): number | undefined {
  return parseCount(req.headers['last-event-id'], 'Last-Event-ID') ?? parseCount(req.query.after, 'after');
}

function open(res: Response, feed: ActivityFeed, after: number | undefined, options: ActivityStreamOptions): void {
  const write = (frame: string): void => {
    if (res.writableEnded || res.destroyed) return;
    res.write(frame);
    // A client that stopped reading is cut off rather than buffered without bound; it resumes
    // with Last-Event-ID and is told what it missed.
    if (res.writableLength > options.maxBufferedBytes) res.destroy();
  };
  const backlog = feed.entries({ after: after ?? 0 });
  if (after !== undefined && backlog.dropped > 0) write(`event: dropped\ndata: ${JSON.stringify({ dropped: backlog.dropped })}\n\n`);
  for (const entry of backlog.entries) write(entryFrame(entry));
  // Nothing awaited since the backlog was read, so no entry can fall between it and the subscription.
  const unsubscribe = feed.subscribe((entry) => write(entryFrame(entry)), { onClose: () => res.end() });
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), options.heartbeatMs);
  heartbeat.unref();
  res.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
}

/**
 * Mounts the stream: each entry as `id: <seq>`, `event: <kind>`, `data: <json>`. A client
 * resuming (`Last-Event-ID` or `?after=`) gets the held entries after that point, preceded by
 * `event: dropped` with `{"dropped": n}` when some it never saw are gone; a new client gets
 * every held entry. Then live entries, and a comment line every `heartbeatMs`. The stream ends
 * when the feed closes; the subscription ends when the client goes away. 422 for a bad resume
 * point, 404 when the feed is off.
 */
export function mountActivityStream(app: Express, surface: HttpSurface, options: ActivityStreamOptions): void {
  app.get('/activity/stream', (req, res) => {
    const feed = feedOf(surface);
    const after = resumePoint(req);
    res.status(200).set(HEADERS);
    res.flushHeaders();
    open(res, feed, after, options);
  });
  app.all('/activity/stream', methodNotAllowed('GET'));
}
