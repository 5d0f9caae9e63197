/**
 * Names why a fetch failed. fetch rejects with a bare "fetch failed" whose reason (refused,
 * reset, closed by the server, timed out) sits in its `cause` chain, and its errors may come
 * from another realm (a VM context, as under Jest), so the chain is read by field, not by
 * `instanceof Error`.
 */

// Deep enough for fetch's chains (TypeError -> SocketError / AggregateError -> Error).
const MAX_DEPTH = 5;

function field(value: unknown, name: 'message' | 'code' | 'cause'): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** One link: its message, with its code when the message does not already hold it. */
function link(value: unknown): string | undefined {
  const message = field(value, 'message');
  const code = field(value, 'code');
  const text = typeof message === 'string' ? message.trim() : '';
  const codeText = typeof code === 'string' || typeof code === 'number' ? String(code) : '';
  if (codeText && !text.includes(codeText)) return text ? `${text} (${codeText})` : codeText;
  return text || undefined;
}

/**
 * `error`'s message followed by those of its causes, e.g.
 * `fetch failed: other side closed (UND_ERR_SOCKET)`; `String(error)` for a non-error.
 */
export function fetchFailureText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== undefined && current !== null; depth++) {
    const text = link(current);
    if (text !== undefined && !parts.includes(text)) parts.push(text);
    current = field(current, 'cause');
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
}
