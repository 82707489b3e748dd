/**
 * A log body as the Logs view keeps it while it arrives: whole lines, the
 * text after the last newline (a line the process has not finished, or one
 * cut by a chunk boundary, which the next chunk continues), and how many of
 * the oldest lines were let go of. Only the last lines are kept, and an
 * unfinished line is broken once it gets long, so a chatty container (or one
 * that never writes a newline) cannot grow the page's memory without end.
 * Values are never changed: each append returns a new one.
 */

/** The lines the view keeps (kubectl's own terminal keeps what the user's scrollback does). */
export const MAX_LOG_LINES = 5_000;
/** An unfinished line longer than this is shown broken, as containerd splits long lines (16 KiB) in its log files. */
export const MAX_LINE_CHARS = 16_384;

export interface LogText {
  /** Whole lines, oldest first, without their newline. */
  readonly lines: readonly string[];
  /** Text after the last newline. */
  readonly partial: string;
  /** Lines dropped from the front to stay within the bound. */
  readonly dropped: number;
}

export const EMPTY_LOG: LogText = { lines: [], partial: '', dropped: 0 };

/** Adds a decoded chunk of the body: its newlines complete lines, the rest waits for the next chunk. */
export function appendLogText(log: LogText, chunk: string, maxLines = MAX_LOG_LINES, maxLineChars = MAX_LINE_CHARS): LogText {
  if (chunk === '') return log;
  const pieces = (log.partial + chunk).split('\n');
  let partial = pieces.pop()!;
  const fresh = pieces;
  while (partial.length > maxLineChars) {
    fresh.push(partial.slice(0, maxLineChars));
    partial = partial.slice(maxLineChars);
  }
  if (fresh.length === 0) return { ...log, partial };
  return keepLast({ lines: log.lines.length === 0 ? fresh : [...log.lines, ...fresh], partial, dropped: log.dropped }, maxLines);
}

/** The body ended: a last line without its newline is a line all the same. */
export function endLogText(log: LogText, maxLines = MAX_LOG_LINES): LogText {
  if (log.partial === '') return log;
  return keepLast({ lines: [...log.lines, log.partial], partial: '', dropped: log.dropped }, maxLines);
}

function keepLast(log: LogText, maxLines: number): LogText {
  const over = log.lines.length - maxLines;
  return over > 0 ? { lines: log.lines.slice(over), partial: log.partial, dropped: log.dropped + over } : log;
}

/** Lines held, the unfinished one included. */
export function lineCount(log: LogText): number {
  return log.lines.length + (log.partial === '' ? 0 : 1);
}

/** The text shown: the lines, one a row, then the unfinished line. */
export function logTextContent(log: LogText): string {
  const all = log.lines.join('\n');
  if (log.partial === '') return all;
  return log.lines.length === 0 ? log.partial : `${all}\n${log.partial}`;
}
