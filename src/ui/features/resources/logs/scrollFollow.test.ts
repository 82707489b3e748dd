import { describe, expect, it } from 'vitest';
import { atBottom, FOLLOWING, scrolled, unseenLines } from './scrollFollow';

const box = (scrollTop: number, scrollHeight = 1000, clientHeight = 400) => ({ scrollTop, scrollHeight, clientHeight });

describe('scroll follow', () => {
  it('at the bottom within the slack of a fractional scroll position, not beyond it; a box that does not overflow is at its bottom', () => {
    expect(atBottom(box(600))).toBe(true);
    expect(atBottom(box(592.5))).toBe(true);
    expect(atBottom(box(591))).toBe(false);
    expect(atBottom(box(0, 300, 400))).toBe(true);
  });

  it('scrolling up stops following and remembers how many lines had arrived; more scrolling up keeps that count', () => {
    const up = scrolled(FOLLOWING, box(200), 40);
    expect(up).toEqual({ pinned: false, receivedAtLeave: 40 });
    expect(scrolled(up, box(100), 55)).toBe(up);
    expect(unseenLines(up, 40)).toBe(0);
    expect(unseenLines(up, 47)).toBe(7);
  });

  it('back at the bottom it follows again, and nothing is unseen', () => {
    const up = scrolled(FOLLOWING, box(200), 40);
    const back = scrolled(up, box(600), 47);
    expect(back).toEqual(FOLLOWING);
    expect(unseenLines(back, 90)).toBe(0);
  });

  it('our own scroll to the bottom as lines arrive keeps following', () => {
    expect(scrolled(FOLLOWING, box(1600, 2000, 400), 120)).toBe(FOLLOWING);
  });
});
