import cliProgress from 'cli-progress';
import type { OntologyLoadEvent } from '../ontology/provision.js';

/** Files larger than this get a progress bar (when stderr is a terminal). */
export const PROGRESS_BAR_MIN_BYTES = 1_048_576;

// Turtle averages somewhere near 100 bytes a triple; the estimate only sizes the bar and is
// corrected as soon as the store reports more triples than that.
const BYTES_PER_TRIPLE = 100;

/**
 * Turns load events into a progress bar on `stream`, one bar per file, only for files larger
 * than {@link PROGRESS_BAR_MIN_BYTES} and only when `stream` is a TTY. Smaller files and
 * non-terminals get nothing here: the loader's log line per file is enough there.
 */
export function progressBars(stream: NodeJS.WritableStream & { isTTY?: boolean }): (event: OntologyLoadEvent) => void {
  let bar: cliProgress.SingleBar | undefined;
  let total = 0;
  return (event) => {
    if (!stream.isTTY) return;
    if (event.phase === 'start') {
      if (event.bytes <= PROGRESS_BAR_MIN_BYTES) return;
      total = Math.max(1, Math.round(event.bytes / BYTES_PER_TRIPLE));
      bar = new cliProgress.SingleBar({
        stream,
        format: `${event.name} [{bar}] {value} triples | {duration_formatted}`,
        hideCursor: true,
        clearOnComplete: true,
      });
      bar.start(total, 0);
    } else if (event.phase === 'write' && bar) {
      if (event.written > total) bar.setTotal((total = event.written));
      bar.update(event.written);
    } else if (event.phase === 'done' && bar) {
      bar.update(total);
      bar.stop();
      bar = undefined;
    }
  };
}
