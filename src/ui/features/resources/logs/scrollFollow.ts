/**
 * When the log box follows new lines, as log viewers and a terminal running
 * `kubectl logs -f` do: it stays scrolled to the newest line while the reader
 * is at the bottom; scrolled up to read, it stays put and counts the lines
 * that arrived since; back at the bottom (or jumping there), it follows again.
 */

/** How near the bottom (px) still counts as at the bottom: a fractional scroll position is never exact. */
export const BOTTOM_SLACK_PX = 8;

export interface ScrollMetrics {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

export interface ScrollFollow {
  /** New lines scroll into view. */
  pinned: boolean;
  /** Lines received when the reader left the bottom (what came after is unseen). */
  receivedAtLeave: number;
}

export const FOLLOWING: ScrollFollow = { pinned: true, receivedAtLeave: 0 };

/** The box shows its last line (a box that does not overflow always does). */
export function atBottom(m: ScrollMetrics, slack = BOTTOM_SLACK_PX): boolean {
  return m.scrollHeight - m.scrollTop - m.clientHeight <= slack;
}

/** After a scroll (the reader's, or ours to the bottom): `received` counts every line the stream brought so far. */
export function scrolled(state: ScrollFollow, m: ScrollMetrics, received: number): ScrollFollow {
  if (atBottom(m)) return state.pinned ? state : FOLLOWING;
  return state.pinned ? { pinned: false, receivedAtLeave: received } : state;
}

/** Lines that arrived since the reader scrolled up. */
export function unseenLines(state: ScrollFollow, received: number): number {
  return state.pinned ? 0 : Math.max(0, received - state.receivedAtLeave);
}
