/**
 * The Logs view of a Pod, as `kubectl logs` reads it: a container (kubectl's
 * default first), --previous, --timestamps, --tail and --follow (on for a
 * container that has not ended). The pod is watched, so a container that
 * starts or restarts is read again without a reload; any change of options
 * asks afresh. A follow stream shows its lines as they come and says when
 * the container ended; a refusal shows as kubectl prints it.
 */
import { useId, useRef, useState } from 'react';
import { isApiError, useWatchedList, type ResourceKind } from '../../../api';
import { StatusError } from '../../../common';
import { useDebouncer } from '../../../common/debounce';
import { LogOutput } from './LogOutput';
import { MAX_LOG_LINES } from './logText';
import { containerLabel, containerRun, followByDefault, logContainers, parseTailLines, podLogPath, serverErrorText } from './podLogs';
import { useLogStream } from './useLogStream';

/** How long typing in the tail field pauses before the view asks for that tail. */
const TAIL_SETTLE_MS = 400;

interface PodLogsProps {
  kind: ResourceKind;
  namespace: string;
  name: string;
  /** The container asked for (from the picker or a Describe row); undefined for kubectl's default. */
  container: string | undefined;
  onContainerChange: (container: string) => void;
}

export default function PodLogs({ kind, namespace, name, container, onContainerChange }: PodLogsProps) {
  const watched = useWatchedList(kind, namespace, '', `metadata.name=${name}`);
  const pod = watched.data?.items.find((item) => item.metadata?.name === name);
  const containers = pod ? logContainers(pod) : [];
  const chosen = containers.find((c) => c.name === container) ?? containers[0];
  const [previous, setPrevious] = useState(false);
  const [timestamps, setTimestamps] = useState(false);
  // The tail typed is asked for once typing pauses (or on Enter, or leaving the field): typing 100 is not three requests.
  const [tailText, setTailText] = useState('');
  const [tailApplied, setTailApplied] = useState('');
  const tailInput = useDebouncer(setTailApplied, TAIL_SETTLE_MS);
  const tailLines = parseTailLines(tailApplied);
  // Follow's default is taken when a container is first shown, so the container ending does not turn it off and ask again.
  const [followChoice, setFollowChoice] = useState<Record<string, boolean>>({});
  const followDefaults = useRef(new Map<string, boolean>());
  if (pod && chosen && !followDefaults.current.has(chosen.name)) followDefaults.current.set(chosen.name, followByDefault(pod, chosen));
  const follow = chosen ? (followChoice[chosen.name] ?? followDefaults.current.get(chosen.name) ?? true) : false;

  const path = chosen ? podLogPath(namespace, name, { container: chosen.name, previous, timestamps, follow, tailLines }) : undefined;
  const run = pod && chosen ? containerRun(pod, chosen) : '';
  const requestKey = `${pod?.metadata?.uid ?? ''} ${run} ${path ?? ''}`;
  const stream = useLogStream(path, requestKey);
  const ids = useId();

  return (
    <div className="pod-logs" data-testid="pod-logs">
      {watched.error && <StatusError error={watched.error} testId="logs-pod-error" />}
      {watched.data && !pod && <p className="muted">{`pods "${name}" not found`}</p>}
      {pod && (
        <div className="logs-options" role="group" aria-label="kubectl logs options">
          <label htmlFor={`${ids}-container`}>Container</label>
          <select id={`${ids}-container`} value={chosen?.name ?? ''} onChange={(e) => onContainerChange(e.target.value)} data-testid="logs-container">
            {containers.map((c) => (
              <option key={c.name} value={c.name}>
                {containerLabel(c)}
              </option>
            ))}
          </select>
          <label title="--follow: keep the stream open and show lines as the container writes them">
            <input type="checkbox" checked={follow} onChange={(e) => chosen && setFollowChoice((f) => ({ ...f, [chosen.name]: e.target.checked }))} data-testid="logs-follow" /> Follow
          </label>
          <label title="--previous: the log of the container's last terminated run">
            <input type="checkbox" checked={previous} onChange={(e) => setPrevious(e.target.checked)} data-testid="logs-previous" /> Previous
          </label>
          <label title="--timestamps: each line after the time it was written (RFC 3339)">
            <input type="checkbox" checked={timestamps} onChange={(e) => setTimestamps(e.target.checked)} data-testid="logs-timestamps" /> Timestamps
          </label>
          <label title="--tail: only the last lines (empty for all)">
            Tail{' '}
            <input
              type="number"
              min={0}
              inputMode="numeric"
              value={tailText}
              placeholder="all"
              onChange={(e) => {
                setTailText(e.target.value);
                tailInput.schedule(e.target.value);
              }}
              onKeyDown={(e) => e.key === 'Enter' && tailInput.flush()}
              onBlur={() => tailInput.flush()}
              data-testid="logs-tail"
              className="logs-tail"
            />
          </label>
        </div>
      )}
      {path && (
        <p className="muted logs-command" data-testid="logs-command">
          <code>{kubectlCommand(name, namespace, chosen?.name ?? '', { previous, timestamps, follow, tailLines })}</code>
        </p>
      )}
      {stream.phase === 'failed' && (
        <div className="status-error" role="alert" data-testid="logs-error" data-reason={isApiError(stream.error) ? stream.error.reason : ''}>
          <p className="status-message">{isApiError(stream.error) ? serverErrorText(stream.error.status) : stream.error instanceof Error ? stream.error.message : String(stream.error)}</p>
        </div>
      )}
      {stream.phase !== 'idle' && stream.phase !== 'failed' && <LogOutput key={requestKey} log={stream.log} />}
      <LogState phase={stream.phase} follow={follow} previous={previous} dropped={stream.log.dropped} empty={stream.log.lines.length === 0 && stream.log.partial === ''} />
    </div>
  );
}

/** The command a learner would type for what the view shows. */
function kubectlCommand(name: string, namespace: string, container: string, o: { previous: boolean; timestamps: boolean; follow: boolean; tailLines?: number }): string {
  const flags = [`-c ${container}`, o.follow && '-f', o.previous && '-p', o.timestamps && '--timestamps', o.tailLines !== undefined && `--tail=${o.tailLines}`].filter(Boolean);
  return `kubectl logs ${name} -n ${namespace} ${flags.join(' ')}`;
}

function LogState({ phase, follow, previous, dropped, empty }: { phase: string; follow: boolean; previous: boolean; dropped: number; empty: boolean }) {
  let text = '';
  if (phase === 'connecting') text = 'Asking the kubelet for the log…';
  else if (phase === 'open') text = follow ? 'Following: lines appear as the container writes them.' : 'Reading the log…';
  else if (phase === 'ended') {
    if (follow && !previous) text = empty ? 'The container is not running: its log is empty.' : 'The container is not running: the stream ended.';
    else text = empty ? 'The log is empty.' : 'End of the log.';
  }
  if (text === '') return null;
  return (
    <p className="muted logs-state" role="status" data-testid="logs-state" data-phase={phase}>
      {text}
      {dropped > 0 && <span data-testid="logs-dropped">{` ${dropped} earlier lines are not kept (the view keeps the last ${MAX_LOG_LINES.toLocaleString('en')}).`}</span>}
    </p>
  );
}
