/**
 * What a browser's EventSource dispatches for an event stream, interpreted by the rules of the
 * HTML standard (§9.2.6 "Interpreting an event stream"): lines end in CRLF, LF or CR; a leading
 * BOM is dropped; `field: value` with one optional space; `data` lines are joined with LF and an
 * event without data is not dispatched; an event without `event:` has type `message` (what
 * `onmessage` receives). Node 20 has no EventSource, so the tests read streams through this.
 */

/** One dispatched event: its type, its data and the last event id at dispatch. */
export interface DispatchedEvent {
  type: string;
  data: string;
  lastEventId: string;
}

/** Feeds text as it arrives and returns the events it completes. */
export class EventStreamInterpreter {
  private pending = '';
  private first = true;
  private data = '';
  private type = '';
  private lastEventId = '';

  push(text: string): DispatchedEvent[] {
    let input = this.pending + text;
    if (this.first && input.length > 0) {
      if (input.charCodeAt(0) === 0xfeff) input = input.slice(1);
      this.first = false;
    }
    const events: DispatchedEvent[] = [];
    const lines = input.split(/\r\n|\n|\r/u);
    // The last piece has no line end yet (a lone trailing CR may still be the start of CRLF: kept too).
    this.pending = lines.pop()!;
    if (input.endsWith('\r')) {
      this.pending = lines.pop()! + '\r';
    }
    for (const line of lines) {
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): DispatchedEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data += `${value}\n`;
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    return undefined;
  }

  private dispatch(): DispatchedEvent | undefined {
    const { data, type } = this;
    this.data = '';
    this.type = '';
    if (data === '') return undefined;
    return { type: type || 'message', data: data.slice(0, -1), lastEventId: this.lastEventId };
  }
}

/**
 * Opens `url` as an EventSource would and calls `listener` for each event of `type` only (as
 * `source.addEventListener(type, listener)`; `'message'` is what `onmessage` gets).
 * Returns a function that closes the stream.
 */
export async function listenTo(
  url: string,
  type: string,
  listener: (event: DispatchedEvent) => void,
  headers: Record<string, string> = {},
): Promise<() => void> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}`);
  const interpreter = new EventStreamInterpreter();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        for (const event of interpreter.push(chunk.value)) if (event.type === type) listener(event);
      }
    } catch {
      // closed by the caller
    }
  })();
  return () => abort.abort();
}
