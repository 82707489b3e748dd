/** The Logs view's line buffer: chunks split anywhere join into the same lines, and only the last lines are kept. */
import { describe, expect, it } from 'vitest';
import { appendLogText, EMPTY_LOG, endLogText, lineCount, logTextContent, type LogText } from './logText';

const fold = (chunks: string[], maxLines?: number, maxLineChars?: number): LogText => chunks.reduce((log, c) => appendLogText(log, c, maxLines, maxLineChars), EMPTY_LOG);

describe('log text', () => {
  it('a line cut by a chunk boundary is continued by the next chunk', () => {
    const log = fold(['line 0\nli', 'ne 1', '\nline 2\n']);
    expect(log).toEqual({ lines: ['line 0', 'line 1', 'line 2'], partial: '', dropped: 0 });
  });

  it('every way of cutting a body into two chunks gives the same lines', () => {
    const body = 'alpha\n\nbeta gamma\ndelta';
    for (let at = 0; at <= body.length; at++) {
      expect(endLogText(fold([body.slice(0, at), body.slice(at)]))).toEqual({ lines: ['alpha', '', 'beta gamma', 'delta'], partial: '', dropped: 0 });
    }
  });

  it('an unfinished line is shown and counted, and becomes a line when the body ends', () => {
    const log = fold(['ready\nwaiting for in']);
    expect(log.partial).toBe('waiting for in');
    expect(lineCount(log)).toBe(2);
    expect(logTextContent(log)).toBe('ready\nwaiting for in');
    expect(endLogText(log).lines).toEqual(['ready', 'waiting for in']);
    expect(endLogText(EMPTY_LOG)).toBe(EMPTY_LOG);
  });

  it('keeps only the last lines and counts those let go of', () => {
    let log = EMPTY_LOG;
    for (let i = 0; i < 25; i++) log = appendLogText(log, `line ${i}\n`, 10);
    expect(log.lines).toHaveLength(10);
    expect(log.lines[0]).toBe('line 15');
    expect(log.lines[9]).toBe('line 24');
    expect(log.dropped).toBe(15);
    const big = appendLogText(EMPTY_LOG, Array.from({ length: 30 }, (_, i) => `${i}\n`).join(''), 10);
    expect(big).toEqual({ lines: ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29'], partial: '', dropped: 20 });
  });

  it('a process that never writes a newline cannot grow one line without end', () => {
    const log = fold(['x'.repeat(7), 'x'.repeat(7)], 100, 5);
    expect(log.lines).toEqual(['xxxxx', 'xxxxx']);
    expect(log.partial).toBe('xxxx');
  });

  it('an empty chunk changes nothing; the shown text has no trailing blank row', () => {
    const log = fold(['a\nb\n']);
    expect(appendLogText(log, '')).toBe(log);
    expect(logTextContent(log)).toBe('a\nb');
    expect(logTextContent(EMPTY_LOG)).toBe('');
  });
});
