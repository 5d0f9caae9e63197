/**
 * `GET /activity?after=<seq>&limit=<n>`: a page of the activity feed.
 */
import type { Express } from 'express';
import type { ActivityFeed } from '../../runtime/activity-feed.js';
import { HttpError } from '../../../http/http-error.js';
import { parseCount } from '../params.js';
import type { HttpSurface } from '../contract.js';
import { methodNotAllowed } from '../../../http/error-handler.js';

/**
 * The surface's feed.
 * @throws HttpError 404 when the activity feed is not enabled.
 */
export function feedOf(surface: HttpSurface): ActivityFeed {
  if (surface.activity === undefined) {
    throw new HttpError(404, 'the activity feed is not enabled here (setting activity_feed)');
  }
  return surface.activity;
}

/**
 * Mounts the page route: `{entries, dropped, lastSeq}` of {@link ActivityFeed.entries}, oldest
 * first; follow the feed by passing the last `seq` received as `after`. 422 when `after` or
 * `limit` is not a non-negative integer, 404 when the feed is off.
 */
export function mountActivity(app: Express, surface: HttpSurface): void {
  app.get('/activity', (req, res) => {
    const feed = feedOf(surface);
    const after = parseCount(req.query.after, 'after');
    const limit = parseCount(req.query.limit, 'limit');
    res.json(feed.entries({ after, limit }));
  });
  app.all('/activity', methodNotAllowed('GET'));
}
