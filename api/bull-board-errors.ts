import { readFileSync } from 'node:fs';

/** Bull Board's error body: a translation key for its UI, sometimes a message beside it. */
interface BoardErrorBody {
  error?: unknown;
  message?: unknown;
}

type Messages = Record<string, unknown>;

/**
 * Bull Board answers errors as `{"error": {"key": "ERRORS.QUEUE_NOT_FOUND", "options": {...}}}` for
 * its UI to translate; the rest of the API answers `{"error": "..."}`. This turns the former into the
 * latter, in English, with the board's own wording (its en-US messages file). The UI shows a string
 * error as it is.
 */
export function boardErrorTranslator(
  englishMessagesFile: string,
): (body: unknown, status: number) => string | undefined {
  const messages = JSON.parse(readFileSync(englishMessagesFile, 'utf8')) as Messages;
  return (body, status) => {
    if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
    const { error, message } = body as BoardErrorBody;
    if (typeof error === 'string') return undefined;
    const translated = translate(messages, error);
    // A server-side failure's raw message (a Redis error, a stack) stays in the log.
    if (status >= 500) return translated ?? 'Internal server error';
    if (translated && typeof message === 'string' && message && message !== translated) {
      return `${translated}: ${message}`;
    }
    return translated ?? (typeof message === 'string' && message ? message : 'Request failed');
  };
}

function translate(messages: Messages, error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { key, options } = error as { key?: unknown; options?: unknown };
  if (typeof key !== 'string') return undefined;
  let node: unknown = messages;
  for (const part of key.split('.')) {
    node = typeof node === 'object' && node !== null ? (node as Messages)[part] : undefined;
  }
  if (typeof node !== 'string') return key;
  const values = typeof options === 'object' && options !== null ? (options as Messages) : {};
  return node.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}
