/**
 * The log's lines, kept scrolled to the newest as they arrive, as a terminal
 * running `kubectl logs -f` does, until the reader scrolls up to read; back
 * at the bottom, it follows again.
 */
import { useLayoutEffect, useRef } from 'react';
import { lineCount, logTextContent, type LogText } from './logText';

/** How near the bottom (px) still counts as at the bottom: a fractional scroll position is never exact. */
const BOTTOM_SLACK_PX = 8;

export function LogOutput({ log }: { log: LogText }) {
  const ref = useRef<HTMLPreElement>(null);
  const pinned = useRef(true);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [log]);

  const onScroll = () => {
    const el = ref.current;
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight <= BOTTOM_SLACK_PX;
  };

  return (
    <pre className="logs-output" ref={ref} onScroll={onScroll} tabIndex={0} aria-label="Container log" aria-live="off" data-testid="logs-output" data-lines={lineCount(log)}>
      {logTextContent(log)}
    </pre>
  );
}
