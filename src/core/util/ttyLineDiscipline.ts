/**
 * A Linux terminal's line discipline in canonical mode, with `stty sane`'s
 * settings (icrnl, onlcr, echo, echoe, echok, echoke, echoctl, isig,
 * iexten): what the terminal echoes for each key, and what its reader gets.
 * One implementation for every place kubesim plays a terminal: the
 * container's pty in front of a simulated process (`kubectl exec -t`), the
 * Node host's shell sessions, and the workbench's local terminal for `-i`
 * without `-t` (where kubectl itself reads a cooked terminal).
 *
 * - Enter (CR, mapped to NL by icrnl, or NL): echoes CR NL, hands over the
 *   line with its newline.
 * - DEL (VERASE) erases one character, `\b \b` on the screen (a control
 *   character shown as `^X` takes two columns); ^U (VKILL) the whole line,
 *   the same way (echoke); ^W (VWERASE) back over non-word characters,
 *   then the word (letters, digits, `_`).
 * - ^C (VINTR), ^\ (VQUIT), ^Z (VSUSP): the line is discarded, `^C` echoed,
 *   the signal sent to the foreground process.
 * - ^D (VEOF) is not echoed: on an empty line the reader gets end of file,
 *   otherwise the partial line, without a newline.
 * - Other control characters are kept and echoed as `^X` (echoctl). Escape
 *   sequences (arrow keys) are dropped: a canonical terminal would keep
 *   them as text, but the shells that run behind kubesim's terminals stand
 *   in for ash's line editing, which takes them as editing keys it does not
 *   simulate.
 */

export type TtySignal = 'SIGINT' | 'SIGQUIT' | 'SIGTSTP';

export interface TtyHooks {
  /** What the terminal shows back (with onlcr's CR NL). */
  echo(text: string): void;
  /** What the reader gets: a line with its newline, or a partial line on ^D. */
  data(text: string): void;
  /** ^D on an empty line: the reader's end of file. */
  eof(): void;
  /** ISIG: the signal for the foreground process (the line already discarded and the key echoed). */
  signal(signal: TtySignal): void;
}

const signals: Record<string, TtySignal> = { '\x03': 'SIGINT', '\x1c': 'SIGQUIT', '\x1a': 'SIGTSTP' };

/** How a character is echoed: a control character as `^X` (DEL as `^?`). */
export function echoOf(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\t' || code >= 0x20 && code !== 0x7f) return c;
  return '^' + (code === 0x7f ? '?' : String.fromCharCode(code + 0x40));
}

const isWordChar = (c: string) => /^[\p{L}\p{N}_]$/u.test(c);

export interface TtyLineDiscipline {
  /** Keys typed (as the terminal emulator sends them). */
  input(text: string): void;
  /** The line typed so far, not yet handed over. */
  readonly line: string;
}

export function ttyLineDiscipline(hooks: TtyHooks): TtyLineDiscipline {
  // The line as characters (a surrogate pair is one), so an erase takes a whole one.
  let line: string[] = [];
  let escape: 0 | 1 | 2 = 0;
  const erase = (n: number) => {
    let shown = '';
    for (let i = 0; i < n && line.length; i++) {
      const width = echoOf(line.pop()!).length === 2 ? 2 : 1;
      shown += '\b \b'.repeat(width);
    }
    if (shown) hooks.echo(shown);
  };
  return {
    get line() {
      return line.join('');
    },
    input(text) {
      for (const c of text) {
        if (escape) {
          // ESC [ parameters, then a final letter (or ~); ESC O letter.
          if (escape === 1) escape = c === '[' || c === 'O' ? 2 : 0;
          else if (/[A-Za-z~]/.test(c)) escape = 0;
          continue;
        }
        const signal = signals[c];
        if (signal) {
          line = [];
          hooks.echo(echoOf(c));
          hooks.signal(signal);
        } else if (c === '\x1b') escape = 1;
        else if (c === '\r' || c === '\n') {
          const text = line.join('') + '\n';
          line = [];
          hooks.echo('\r\n');
          hooks.data(text);
        } else if (c === '\x7f') erase(1);
        else if (c === '\x15') erase(line.length);
        else if (c === '\x17') {
          let n = 0;
          while (n < line.length && !isWordChar(line[line.length - 1 - n]!)) n++;
          while (n < line.length && isWordChar(line[line.length - 1 - n]!)) n++;
          erase(n);
        } else if (c === '\x04') {
          if (!line.length) hooks.eof();
          else {
            const text = line.join('');
            line = [];
            hooks.data(text);
          }
        } else {
          line.push(c);
          hooks.echo(echoOf(c));
        }
      }
    },
  };
}
