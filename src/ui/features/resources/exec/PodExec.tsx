/**
 * The Exec view of a Pod, as `kubectl exec` runs a command in one of its
 * containers, or `kubectl attach` joins the container's own process: a
 * container (kubectl's default first), the command, -i and -t, and a
 * terminal (xterm.js) wired to the stream the service worker opens
 * (execStream.ts). With -t the container's terminal does the echo and line
 * editing; with -i alone the view edits the line locally and sends it on
 * Enter, as a terminal in cooked mode does, and ^D closes the input. The end
 * is printed as kubectl prints it.
 */
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useId, useRef, useState } from 'react';
import { record, str } from '../../../../core/printers/format';
import { useWatchedList, type ResourceKind } from '../../../api';
import { StatusError } from '../../../common';
import { containerLabel, logContainers } from '../logs/podLogs';
import { openExecStream, type ExecEnd, type ExecStream } from './execStream';
import { attachEndedText, execEndText, kubectlAttachCommand, kubectlExecCommand, podAttachPath, podExecPath, splitCommand, type PodExecOptions } from './podExec';

interface PodExecProps {
  kind: ResourceKind;
  namespace: string;
  name: string;
  /** The container asked for; undefined for kubectl's default. */
  container: string | undefined;
  onContainerChange: (container: string) => void;
}

type Phase = 'idle' | 'connecting' | 'open' | 'ended';
type Mode = 'exec' | 'attach';

/** The worker that answers this page's API requests (it runs the cluster). */
function worker(): ServiceWorker | null {
  return typeof navigator !== 'undefined' ? navigator.serviceWorker?.controller ?? null : null;
}

export default function PodExec({ kind, namespace, name, container, onContainerChange }: PodExecProps) {
  const watched = useWatchedList(kind, namespace, '', `metadata.name=${name}`);
  const pod = watched.data?.items.find((item) => item.metadata?.name === name);
  const containers = pod ? logContainers(pod) : [];
  const chosen = containers.find((c) => c.name === container) ?? containers[0];
  const [mode, setMode] = useState<Mode>('exec');
  const [commandText, setCommandText] = useState('sh');
  const [stdin, setStdin] = useState(true);
  const [tty, setTty] = useState(true);
  const [phase, setPhase] = useState<Phase>('idle');
  /** What the view says once the stream ended: kubectl's message, or ours; failed when it is an error. */
  const [ending, setEnding] = useState({ text: '', failed: false });
  const screen = useRef<HTMLDivElement>(null);
  const session = useRef<{ terminal: Terminal; stream: ExecStream } | null>(null);
  const ids = useId();

  const command = splitCommand(commandText);
  // attach runs no command of its own: the container's process is joined.
  const options: PodExecOptions | undefined = chosen && (mode === 'attach' || command?.length) ? { container: chosen.name, command: mode === 'attach' ? [] : (command ?? []), stdin, tty } : undefined;
  const restartsAlways = str(record(pod?.['spec'])['restartPolicy']) !== 'Never' && str(record(pod?.['spec'])['restartPolicy']) !== 'OnFailure';

  const disconnect = () => {
    session.current?.stream.close();
    session.current = null;
  };
  // Leaving the view (or the object) leaves the stream: the exec'd process is stopped.
  useEffect(() => () => {
    session.current?.stream.close();
    session.current?.terminal.dispose();
  }, []);

  const connect = () => {
    const target = worker();
    if (!options || !screen.current || !target) return;
    session.current?.stream.close();
    session.current?.terminal.dispose();
    screen.current.replaceChildren();
    // Without a terminal the process writes bare newlines.
    const terminal = new Terminal({ convertEol: !options.tty, cursorBlink: options.tty, fontSize: 13, rows: 20, cols: 100, scrollback: 5000 });
    terminal.open(screen.current);
    setPhase('connecting');
    setEnding({ text: '', failed: false });
    const attaching = mode === 'attach';
    const path = attaching ? podAttachPath(namespace, name, options) : podExecPath(namespace, name, options);
    const stream = openExecStream(target, path, {
      onOpen: () => setPhase('open'),
      onOutput: (_stream, text) => terminal.write(text),
      onEnd: (end: ExecEnd) => {
        setPhase('ended');
        const failure = end.kind === 'closed' ? '' : execEndText(end);
        // kubectl attach -it says how to come back to a container that runs on.
        const resume = attaching && options.stdin && options.tty && restartsAlways ? attachEndedText(name, options.container) : '';
        setEnding(failure ? { text: failure, failed: true } : { text: resume || (end.kind === 'closed' ? 'Disconnected.' : 'The command ended.'), failed: false });
        if (session.current?.stream === stream) session.current = null;
      },
    });
    let line = '';
    terminal.onData((data) => {
      if (!options.stdin) return;
      if (options.tty) return stream.input(data);
      // Cooked mode, as the local terminal kubectl runs in: echo, backspace, the line on Enter, ^D ends the input.
      for (const c of data) {
        if (c === '\r') {
          terminal.write('\r\n');
          stream.input(line + '\n');
          line = '';
        } else if (c === '\x7f') {
          if (line) terminal.write('\b \b');
          line = line.slice(0, -1);
        } else if (c === '\x04') {
          if (line) stream.input(line);
          line = '';
          stream.closeInput();
        } else if (c >= ' ') {
          line += c;
          terminal.write(c);
        }
      }
    });
    terminal.focus();
    session.current = { terminal, stream };
  };

  return (
    <div className="pod-exec" data-testid="pod-exec">
      {watched.error && <StatusError error={watched.error} testId="exec-pod-error" />}
      {watched.data && !pod && <p className="muted">{`pods "${name}" not found`}</p>}
      {pod && (
        <div className="logs-options" role="group" aria-label="kubectl exec options">
          <label htmlFor={`${ids}-container`}>Container</label>
          <select id={`${ids}-container`} value={chosen?.name ?? ''} onChange={(e) => onContainerChange(e.target.value)} data-testid="exec-container">
            {containers.map((c) => (
              <option key={c.name} value={c.name}>
                {containerLabel(c)}
              </option>
            ))}
          </select>
          <select aria-label="Verb" value={mode} onChange={(e) => setMode(e.target.value as Mode)} disabled={phase === 'open' || phase === 'connecting'} data-testid="exec-mode">
            <option value="exec">exec: run a command</option>
            <option value="attach">attach: join the container's process</option>
          </select>
          {mode === 'exec' && (
            <>
              <label htmlFor={`${ids}-command`}>Command</label>
              <input id={`${ids}-command`} className="exec-command-input" value={commandText} onChange={(e) => setCommandText(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && connect()} spellCheck={false} data-testid="exec-command-input" />
            </>
          )}
          <label title="-i, --stdin: pass what you type to the command's standard input">
            <input type="checkbox" checked={stdin} onChange={(e) => setStdin(e.target.checked)} data-testid="exec-stdin" /> -i
          </label>
          <label title="-t, --tty: a terminal (the container's shell echoes and edits what you type)">
            <input type="checkbox" checked={tty} onChange={(e) => setTty(e.target.checked)} data-testid="exec-tty" /> -t
          </label>
          {phase === 'open' || phase === 'connecting' ? (
            <button type="button" onClick={disconnect} data-testid="exec-disconnect">
              Disconnect
            </button>
          ) : (
            <button type="button" onClick={connect} disabled={!options || !worker()} data-testid="exec-connect">
              Run
            </button>
          )}
        </div>
      )}
      {mode === 'exec' && commandText.trim() !== '' && !command && <p className="muted">The command has an unclosed quote.</p>}
      {options && (
        <p className="muted logs-command" data-testid="exec-command">
          <code>{mode === 'attach' ? kubectlAttachCommand(name, namespace, options) : kubectlExecCommand(name, namespace, options)}</code>
        </p>
      )}
      <div className="exec-terminal" ref={screen} data-testid="exec-terminal" hidden={phase === 'idle'} />
      <ExecState phase={phase} ending={ending} hint={mode === 'attach' && stdin && tty ? "If you don't see a command prompt, try pressing enter." : ''} />
    </div>
  );
}

function ExecState({ phase, ending, hint }: { phase: Phase; ending: { text: string; failed: boolean }; hint: string }) {
  let text = '';
  if (phase === 'connecting') text = 'Asking the kubelet for the stream…';
  // attach -it: kubectl's own hint, since the process printed its prompt before anyone joined.
  else if (phase === 'open') text = hint || 'Connected: what you type goes to the command.';
  else if (phase === 'ended') text = ending.text;
  if (text === '') return null;
  return (
    <p className={phase === 'ended' && ending.failed ? 'exec-state exec-failed' : 'muted exec-state'} role="status" data-testid="exec-state" data-phase={phase}>
      {text}
    </p>
  );
}
