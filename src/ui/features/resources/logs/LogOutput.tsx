/**
 * The log's lines, kept scrolled to the newest as they arrive, as a terminal
 * running `kubectl logs -f` does, until the reader scrolls up to read: then
 * it stays put and offers the way back (with how many lines came since);
 * back at the bottom, it follows again.
 */
import { useLayoutEffect, useRef, useState } from 'react';
import { lineCount, logTextContent, type LogText } from './logText';
import { FOLLOWING, scrolled, unseenLines } from './scrollFollow';

export function LogOutput({ log }: { log: LogText }) {
  const ref = useRef<HTMLPreElement>(null);
  const [follow, setFollow] = useState(FOLLOWING);
  const received = log.dropped + lineCount(log);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && follow.pinned) el.scrollTop = el.scrollHeight;
  }, [log, follow.pinned]);

  const onScroll = () => {
    const el = ref.current;
    if (el) setFollow((f) => scrolled(f, el, received));
  };

  const toNewest = () => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
    setFollow(FOLLOWING);
  };

  const unseen = unseenLines(follow, received);
  return (
    <div className="logs-output-box" data-testid="logs-output-box" data-pinned={follow.pinned}>
      <pre className="logs-output" ref={ref} onScroll={onScroll} tabIndex={0} aria-label="Container log" aria-live="off" data-testid="logs-output" data-lines={lineCount(log)}>
        {logTextContent(log)}
      </pre>
      {!follow.pinned && (
        <button type="button" className="logs-to-newest" onClick={toNewest} data-testid="logs-to-newest" title="Scrolled up: new lines are not scrolled into view. Back at the bottom, the view follows them again.">
          {unseen > 0 ? `↓ ${unseen} new ${unseen === 1 ? 'line' : 'lines'}` : '↓ Newest line'}
        </button>
      )}
    </div>
  );
}
