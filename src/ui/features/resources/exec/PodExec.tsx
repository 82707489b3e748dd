/**
 * The Exec view of a Pod, as kubectl reaches into its containers: `kubectl
 * exec` runs a command in one, `kubectl attach` joins the container's own
 * process, and `kubectl debug` adds an ephemeral container (from an image
 * of the user's choice, optionally sharing a container's process namespace)
 * and attaches to it once it runs. A container (kubectl's default first),
 * the command, -i and -t, and a terminal (xterm.js) wired to the stream the
 * service worker opens (execStream.ts). With -t the container's terminal
 * does the echo and line editing; with -i alone the view edits the line
 * locally and sends it on Enter, as the terminal kubectl runs in does in
 * cooked mode (cookedTerminal.ts): ^D closes the input, ^C leaves. What
 * kubectl prints (its notices, the end) is printed as kubectl prints it.
 */
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useId, useRef, useState } from 'react';
import { arr, field, record, str } from '../../../../core/printers/format';
import { objectPath, statusFrom, useApiClient, useWatchedList, type KubeObject, type ResourceKind } from '../../../api';
import { StatusError } from '../../../common';
import { containerLabel, logContainers, serverErrorText } from '../logs/podLogs';
import { cookedTerminal } from './cookedTerminal';
import { openExecStream, type ExecEnd, type ExecStream } from './execStream';
import {
  attachEndedText,
  debugContainerName,
  debugPatch,
  debugPreamble,
  execEndText,
  kubectlAttachCommand,
  kubectlDebugCommand,
  kubectlExecCommand,
  podAttachPath,
  podExecPath,
  splitCommand,
  type PodDebugOptions,
} from './podExec';

interface PodExecProps {
  kind: ResourceKind;
  namespace: string;
  name: string;
  /** The container asked for; undefined for kubectl's default. */
  container: string | undefined;
  onContainerChange: (container: string) => void;
}

type Phase = 'idle' | 'connecting' | 'open' | 'ended';
type Mode = 'exec' | 'attach' | 'debug';
type Ending = { text: string; failed: boolean };

/** How long kubectl debug waits for its container to run before giving up (its --pod-running-timeout's 1m). */
const DEBUG_RUNNING_TIMEOUT_MS = 60_000;

/** The worker that answers this page's API requests (it runs the cluster). */
function worker(): ServiceWorker | null {
  return typeof navigator !== 'undefined' ? (navigator.serviceWorker?.controller ?? null) : null;
}

/** The ephemeral container's state as the kubelet reports it. */
function ephemeralState(pod: KubeObject, name: string): Record<string, unknown> {
  return record(field(arr(record(pod['status'])['ephemeralContainerStatuses']).find((s) => str(record(s)['name']) === name), 'state'));
}

export default function PodExec({ kind, namespace, name, container, onContainerChange }: PodExecProps) {
  const client = useApiClient();
  const watched = useWatchedList(kind, namespace, '', `metadata.name=${name}`);
  const pod = watched.data?.items.find((item) => item.metadata?.name === name);
  const containers = pod ? logContainers(pod) : [];
  const chosen = containers.find((c) => c.name === container) ?? containers[0];
  const [mode, setMode] = useState<Mode>('exec');
  const [commandText, setCommandText] = useState('sh');
  const [image, setImage] = useState('busybox:1.36');
  const [target, setTarget] = useState('');
  const [stdin, setStdin] = useState(true);
  const [tty, setTty] = useState(true);
  const [phase, setPhase] = useState<Phase>('idle');
  /** What the view says once the stream ended: kubectl's message, or ours; failed when it is an error. */
  const [ending, setEnding] = useState<Ending>({ text: '', failed: false });
  const screen = useRef<HTMLDivElement>(null);
  /** The run in progress: its stream once open, and whether the view left it. */
  const session = useRef<{ stream?: ExecStream; cancelled?: boolean } | null>(null);
  /** The terminal on screen: it outlives its session (the output stays readable) until the next run or the view goes. */
  const shown = useRef<Terminal | null>(null);
  const ids = useId();

  const command = splitCommand(commandText);
  const restartsAlways = !['Never', 'OnFailure'].includes(str(record(pod?.['spec'])['restartPolicy']));
  // exec needs a command; attach runs none (the container's process is joined); debug's is optional (the image's own).
  const ready = mode === 'debug' ? image.trim() !== '' && command !== undefined : chosen !== undefined && (mode === 'attach' || (command?.length ?? 0) > 0);
  const debugOptions = { image: image.trim(), target, command: command ?? [], stdin, tty };
  const commandLine = !ready
    ? ''
    : mode === 'debug'
      ? kubectlDebugCommand(name, namespace, debugOptions)
      : mode === 'attach'
        ? kubectlAttachCommand(name, namespace, { container: chosen!.name, stdin, tty })
        : kubectlExecCommand(name, namespace, { container: chosen!.name, command: command ?? [], stdin, tty });

  const leave = () => {
    const s = session.current;
    if (!s) return;
    s.cancelled = true;
    // A stream ends itself (its onEnd); a debug container still being waited for ends here.
    if (s.stream) s.stream.close();
    else end({ text: 'Disconnected.', failed: false });
  };
  // Leaving the view (or the object) leaves the stream: the exec'd process is stopped.
  useEffect(
    () => () => {
      leave();
      shown.current?.dispose();
    },
    [],
  );

  const end = (e: Ending) => {
    setPhase('ended');
    setEnding(e);
    session.current = null;
  };

  /** Opens the stream at path in the terminal; attaching: kubectl attach's resume notice at the end. */
  const stream = (terminal: Terminal, path: string, container: string, attaching: boolean, s: NonNullable<typeof session.current>) => {
    const opened = openExecStream(worker()!, path, {
      onOpen: () => setPhase('open'),
      onOutput: (_stream, text) => terminal.write(text),
      onEnd: (result: ExecEnd) => {
        const failure = result.kind === 'closed' ? '' : execEndText(result);
        // kubectl attach -it says how to come back to a container that runs on.
        const resume = attaching && stdin && tty && restartsAlways ? attachEndedText(name, container) : '';
        if (session.current === s) end(failure ? { text: failure, failed: true } : { text: resume || (result.kind === 'closed' ? 'Disconnected.' : 'The command ended.'), failed: false });
      },
    });
    s.stream = opened;
    const cooked = cookedTerminal((text) => terminal.write(text), opened);
    terminal.onData((data) => {
      if (!stdin) return;
      if (tty) opened.input(data);
      else cooked(data);
    });
  };

  /** kubectl debug: the ephemeral container added, then (with -i) attached to once it runs. */
  const debug = async (terminal: Terminal, s: NonNullable<typeof session.current>) => {
    const o: PodDebugOptions = { ...debugOptions, name: debugContainerName() };
    for (const notice of debugPreamble(o)) terminal.write(`${notice}\r\n`);
    const podPath = objectPath(kind, namespace, name);
    const patched = await client.fetch(`${podPath}/ephemeralcontainers`, { method: 'PATCH', headers: { Accept: 'application/json', 'Content-Type': 'application/strategic-merge-patch+json' }, body: JSON.stringify(debugPatch(o)) });
    if (s.cancelled) return;
    if (!patched.ok) return end({ text: serverErrorText(await statusFrom(patched)), failed: true });
    onContainerChange(o.name);
    if (!o.stdin && !o.tty) return end({ text: `Added the ephemeral container ${o.name}.`, failed: false });
    // As kubectl, wait for the container to run (or to have ended) before attaching.
    const deadline = Date.now() + DEBUG_RUNNING_TIMEOUT_MS;
    for (;;) {
      const state = ephemeralState(await client.get<KubeObject>(podPath), o.name);
      if (s.cancelled) return;
      if (state['running'] || state['terminated']) break;
      if (Date.now() > deadline) return end({ text: `error: timed out waiting for the condition`, failed: true });
      await new Promise((r) => setTimeout(r, 500));
    }
    if (o.stdin && o.tty) terminal.write("If you don't see a command prompt, try pressing enter.\r\n");
    stream(terminal, podAttachPath(namespace, name, { container: o.name, stdin: o.stdin, tty: o.tty }), o.name, true, s);
  };

  const connect = () => {
    if (!ready || !screen.current || !worker()) return;
    leave();
    shown.current?.dispose();
    screen.current.replaceChildren();
    // Without a terminal the process writes bare newlines.
    const terminal = new Terminal({ convertEol: !tty, cursorBlink: tty, fontSize: 13, rows: 20, cols: 100, scrollback: 5000 });
    terminal.open(screen.current);
    shown.current = terminal;
    terminal.focus();
    const s: NonNullable<typeof session.current> = {};
    session.current = s;
    setPhase('connecting');
    setEnding({ text: '', failed: false });
    if (mode === 'debug') {
      debug(terminal, s).catch((e: unknown) => session.current === s && end({ text: `error: ${e instanceof Error ? e.message : String(e)}`, failed: true }));
      return;
    }
    const container = chosen!.name;
    const path = mode === 'attach' ? podAttachPath(namespace, name, { container, stdin, tty }) : podExecPath(namespace, name, { container, command: command ?? [], stdin, tty });
    stream(terminal, path, container, mode === 'attach', s);
  };

  const busy = phase === 'open' || phase === 'connecting';
  return (
    <div className="pod-exec" data-testid="pod-exec">
      {watched.error && <StatusError error={watched.error} testId="exec-pod-error" />}
      {watched.data && !pod && <p className="muted">{`pods "${name}" not found`}</p>}
      {pod && (
        <div className="logs-options" role="group" aria-label="kubectl exec options">
          <select aria-label="Verb" value={mode} onChange={(e) => setMode(e.target.value as Mode)} disabled={busy} data-testid="exec-mode">
            <option value="exec">exec: run a command</option>
            <option value="attach">attach: join the container&apos;s process</option>
            <option value="debug">debug: add an ephemeral container</option>
          </select>
          {mode === 'debug' ? (
            <>
              <label htmlFor={`${ids}-image`}>Image</label>
              <input id={`${ids}-image`} className="exec-command-input" value={image} onChange={(e) => setImage(e.target.value)} spellCheck={false} data-testid="exec-image" />
              <label htmlFor={`${ids}-target`} title="--target: share this container's process namespace">
                Target
              </label>
              <select id={`${ids}-target`} value={target} onChange={(e) => setTarget(e.target.value)} data-testid="exec-target">
                <option value="">(none)</option>
                {arr(record(pod['spec'])['containers']).map((c) => (
                  <option key={str(record(c)['name'])} value={str(record(c)['name'])}>
                    {str(record(c)['name'])}
                  </option>
                ))}
              </select>
            </>
          ) : (
            <>
              <label htmlFor={`${ids}-container`}>Container</label>
              <select id={`${ids}-container`} value={chosen?.name ?? ''} onChange={(e) => onContainerChange(e.target.value)} data-testid="exec-container">
                {containers.map((c) => (
                  <option key={c.name} value={c.name}>
                    {containerLabel(c)}
                  </option>
                ))}
              </select>
            </>
          )}
          {mode !== 'attach' && (
            <>
              <label htmlFor={`${ids}-command`}>Command</label>
              <input id={`${ids}-command`} className="exec-command-input" value={commandText} placeholder={mode === 'debug' ? "the image's own" : ''} onChange={(e) => setCommandText(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && connect()} spellCheck={false} data-testid="exec-command-input" />
            </>
          )}
          <label title="-i, --stdin: pass what you type to the command's standard input">
            <input type="checkbox" checked={stdin} onChange={(e) => setStdin(e.target.checked)} data-testid="exec-stdin" /> -i
          </label>
          <label title="-t, --tty: a terminal (the container's shell echoes and edits what you type)">
            <input type="checkbox" checked={tty} onChange={(e) => setTty(e.target.checked)} data-testid="exec-tty" /> -t
          </label>
          {busy ? (
            <button type="button" onClick={leave} data-testid="exec-disconnect">
              Disconnect
            </button>
          ) : (
            <button type="button" onClick={connect} disabled={!ready || !worker()} data-testid="exec-connect">
              Run
            </button>
          )}
        </div>
      )}
      {mode !== 'attach' && commandText.trim() !== '' && !command && <p className="muted">The command has an unclosed quote.</p>}
      {commandLine && (
        <p className="muted logs-command" data-testid="exec-command">
          <code>{commandLine}</code>
        </p>
      )}
      <div className="exec-terminal" ref={screen} data-testid="exec-terminal" hidden={phase === 'idle'} />
      <ExecState phase={phase} ending={ending} hint={mode === 'attach' && stdin && tty ? "If you don't see a command prompt, try pressing enter." : ''} />
    </div>
  );
}

function ExecState({ phase, ending, hint }: { phase: Phase; ending: Ending; hint: string }) {
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
