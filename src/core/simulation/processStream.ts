/**
 * Streams a simulated container's process to a client (attach, and exec of
 * a process that takes time): what it writes, sent as the server clock
 * reaches it; what the client sends, given to the process as it comes. With
 * a terminal, the part a pty plays too: keystrokes echoed, a line edited
 * (backspace, ^C drops it) and handed over on Enter, ^D on an empty line the
 * end of input.
 */
import type { Clock } from '../util/clock';
import type { AttachedProcess, ProcessStreamSession, StreamOptions } from '../http/upgrade';
import type { RecordedProcess } from './containerRuntime';

export interface ProcessStreamOptions {
  /** What the process wrote before the client came is not sent (attach starts from now). */
  fromNow?: boolean;
  /** The error channel's Status for the process's exit code. */
  statusFor(code: number): Record<string, unknown>;
  /** The client leaving closes the process's stdin (a container's stdinOnce). */
  closeInputOnDetach?: boolean;
}

/** A terminal's line discipline in front of the process: echo and line editing, a whole line given on Enter. */
function terminal(echo: (text: string) => void, give: (text: string) => void, end: () => void) {
  let line = '';
  let escape = 0;
  return (text: string) => {
    for (const c of text) {
      if (escape) {
        // ESC [ ... final letter: arrow keys and the like are ignored.
        if (escape === 1) escape = c === '[' ? 2 : 0;
        else if (/[A-Za-z~]/.test(c)) escape = 0;
      } else if (c === '\x1b') escape = 1;
      else if (c === '\r' || c === '\n') {
        echo('\r\n');
        give(line + '\n');
        line = '';
      } else if (c === '\x7f' || c === '\b') {
        if (line) {
          line = [...line].slice(0, -1).join('');
          echo('\b \b');
        }
      } else if (c === '\x03') {
        echo('^C\r\n');
        line = '';
        give('\n');
      } else if (c === '\x04') {
        if (!line) end();
      } else if (c >= ' ') {
        line += c;
        echo(c);
      }
    }
  };
}

export function processStreamSession(clock: Clock, options: StreamOptions, recorded: RecordedProcess, opts: ProcessStreamOptions): ProcessStreamSession {
  return {
    options,
    attach(write): AttachedProcess {
      const gone = new AbortController();
      let wake = new AbortController();
      const now = () => clock.now().getTime();
      const history = opts.fromNow ? recorded.read(now()).entries : [];
      let lastSeq = history.length ? history[history.length - 1]!.seq : -1;
      // How much of the last entry went out: a partial line (a prompt) grows with the next write.
      let lastSent = history.length ? history[history.length - 1]!.line.length : 0;
      const send = (stream: 1 | 2, text: string) => {
        if (options.tty) write(1, text);
        else if (stream === 1 ? options.stdout : options.stderr) write(stream, text);
      };
      const nudge = () => wake.abort();
      // Stopped with its container: the stream ends then.
      const unwatch = recorded.onStop(nudge);

      const done = (async () => {
        try {
          return await follow();
        } finally {
          unwatch();
        }
      })();
      async function follow(): Promise<Record<string, unknown>> {
        for (;;) {
          const log = recorded.read(now());
          for (const e of log.entries) {
            if (e.seq < lastSeq) continue;
            if (e.seq === lastSeq) {
              if (e.line.length > lastSent) send(e.stream, e.line.slice(lastSent));
            } else send(e.stream, e.line);
            lastSeq = e.seq;
            lastSent = e.line.length;
          }
          // A process stopped with its container was killed (SIGKILL).
          if (log.ended) return opts.statusFor(recorded.exit?.code ?? (recorded.stoppedAt !== undefined ? 137 : 0));
          if (gone.signal.aborted) return opts.statusFor(0);
          wake = new AbortController();
          const signal = AbortSignal.any([wake.signal, gone.signal]);
          const wait = log.next === undefined ? 3_600_000 : log.next - now();
          if (wait > 0) await clock.sleep(wait, signal).catch(() => undefined);
        }
      }

      const give = (text: string) => {
        recorded.input(text, now());
        nudge();
      };
      const closeInput = () => {
        recorded.closeInput(now());
        nudge();
      };
      const type = options.tty ? terminal((t) => write(1, t), give, closeInput) : give;
      return {
        input: (text) => {
          if (options.stdin) type(text);
        },
        closeInput: () => {
          if (options.stdin) closeInput();
        },
        done,
        detach() {
          if (opts.closeInputOnDetach && options.stdin) recorded.closeInput(now());
          gone.abort();
        },
      };
    },
  };
}
