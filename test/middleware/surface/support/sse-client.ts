/**
 * A minimal server-sent-events reader over fetch, for tests: yields parsed frames (comments too).
 */

/** One SSE frame as sent: its fields, or a comment line. */
export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** An open stream: read frames one at a time, or stop. */
export interface SseStream {
  response: Response;
  /** The next frame, or undefined when the server ended the stream. Fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Frame | undefined>;
  /** The next `n` frames that are not comments. */
  take(n: number): Promise<Frame[]>;
  close(): void;
}

function parse(block: string): Frame {
  const frame: Frame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    const m = /^(id|event|data): ?(.*)$/.exec(line);
    if (m) frame[m[1] as 'id' | 'event' | 'data'] = m[2];
  }
  return frame;
}

/** Opens `url` with `headers` and reads it as an event stream. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const next = async (timeoutMs = 5000): Promise<Frame | undefined> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parse(block);
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no SSE frame within ${timeoutMs} ms; buffered ${JSON.stringify(buffer)}`)),
          Math.max(1, deadline - Date.now()),
        );
      });
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) return undefined;
      buffer += chunk.value;
    }
  };
  const take = async (n: number): Promise<Frame[]> => {
    const frames: Frame[] = [];
    while (frames.length < n) {
      const frame = await next();
      if (frame === undefined) throw new Error(`stream ended after ${frames.length} of ${n} frames`);
      if (frame.comment === undefined) frames.push(frame);
    }
    return frames;
  };
  return { response, next, take, close: () => abort.abort() };
}
