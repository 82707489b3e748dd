/**
 * The terminal kubectl runs in, for `-i` without `-t`: kubectl leaves it in
 * canonical mode, so the terminal edits the line (the core's line
 * discipline, as a Linux tty) and kubectl sends each line as it is handed
 * over, a partial one on ^D; ^D on an empty line is the end of its input,
 * and ^C (or ^\) kills kubectl, which leaves the stream (the process in the
 * container runs on). ^Z would stop kubectl: the page has no job control,
 * so only the line is dropped.
 */
import { ttyLineDiscipline } from '../../../../core/util/ttyLineDiscipline';
import type { ExecStream } from './execStream';

export function cookedTerminal(show: (text: string) => void, stream: Pick<ExecStream, 'input' | 'closeInput' | 'close'>): (keys: string) => void {
  const tty = ttyLineDiscipline({
    echo: show,
    data: (text) => stream.input(text),
    eof: () => stream.closeInput(),
    signal: (sig) => {
      if (sig !== 'SIGTSTP') stream.close();
    },
  });
  return (keys) => tty.input(keys);
}
