/**
 * Watch stepping: open a watch with chosen parameters; events queue up and
 * are applied one at a time (step) or in a steady stream (play), each shown
 * with its type, resourceVersion and a diff of the object. The timeline
 * lists the applied revisions; a 410 Expired ends the watch and relisting
 * resumes it, as an informer does.
 */
import { useEffect, useState } from 'react';
import { ApiError, resourceKey, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { diffLines, objectText, queued, DEFAULT_WATCH_PARAMS, type AppliedEvent, type WatchParams } from './session';
import { useSteppedWatch } from './useSteppedWatch';

const PLAY_INTERVAL_MS = 400;

export function WatchPanel({ kinds }: { kinds: readonly ResourceKind[] }) {
  const selectedKindKey = useWorkbench((s) => s.selectedKindKey);
  const selectedNamespace = useWorkbench((s) => s.selectedNamespace);
  const [kindKey, setKindKey] = useState(selectedKindKey);
  const [params, setParams] = useState<WatchParams>(DEFAULT_WATCH_PARAMS);
  const [playing, setPlaying] = useState(false);
  const [shown, setShown] = useState<number | null>(null);
  const [relistError, setRelistError] = useState<unknown>(null);
  const watch = useSteppedWatch();
  const { session } = watch;
  const kind = kinds.find((k) => resourceKey(k) === kindKey);
  const namespace = kind?.namespaced ? (selectedNamespace ?? undefined) : undefined;
  const waiting = queued(session);

  useEffect(() => {
    if (!playing || waiting === 0) return;
    const timer = setTimeout(watch.step, PLAY_INTERVAL_MS);
    return () => clearTimeout(timer);
  }, [playing, waiting, watch.step]);

  const set = <K extends keyof WatchParams>(key: K, value: WatchParams[K]) => setParams((p) => ({ ...p, [key]: value }));
  const current: AppliedEvent | undefined = shown === null ? session.history.at(-1) : session.history.find((h) => h.seq === shown);

  return (
    <section className="panel watch-panel" aria-labelledby="watch-heading" data-testid="watch-panel">
      <h2 id="watch-heading">Watch</h2>
      <form
        className="write-options"
        onSubmit={(e) => {
          e.preventDefault();
          if (!kind) return;
          setShown(null);
          setRelistError(null);
          watch.open(kind, namespace, params);
        }}
      >
        <label>
          Kind{' '}
          <select value={kindKey} onChange={(e) => setKindKey(e.target.value)} data-testid="watch-kind">
            {kinds
              .filter((k) => k.verbs.includes('watch'))
              .map((k) => (
                <option key={resourceKey(k)} value={resourceKey(k)}>
                  {k.kind}
                  {k.group ? ` (${k.group}/${k.version})` : ''}
                </option>
              ))}
          </select>
        </label>
        <span className="muted">{kind?.namespaced ? `in ${namespace ?? 'all namespaces'}` : 'cluster-wide'}</span>
        <label>
          resourceVersion <input value={params.resourceVersion} onChange={(e) => set('resourceVersion', e.target.value)} size={8} placeholder="(newest)" data-testid="watch-rv" />
        </label>
        <label>
          <input type="checkbox" checked={params.allowWatchBookmarks} onChange={(e) => set('allowWatchBookmarks', e.target.checked)} /> bookmarks
        </label>
        <label>
          <input type="checkbox" checked={params.sendInitialEvents} onChange={(e) => set('sendInitialEvents', e.target.checked)} data-testid="watch-initial" /> sendInitialEvents
        </label>
        <label>
          labels <input value={params.labelSelector} onChange={(e) => set('labelSelector', e.target.value)} size={12} data-testid="watch-labels" />
        </label>
        <label>
          fields <input value={params.fieldSelector} onChange={(e) => set('fieldSelector', e.target.value)} size={14} placeholder="metadata.name=x" />
        </label>
        <button type="submit" className="primary" data-testid="watch-open">
          {watch.state === 'open' ? 'Reopen' : 'Open watch'}
        </button>
        {watch.state === 'open' && (
          <button type="button" onClick={watch.close} data-testid="watch-close">
            Close
          </button>
        )}
      </form>
      {watch.request && (
        <p className="muted">
          <code data-testid="watch-request">GET {watch.request}</code> — <span data-testid="watch-state">{watch.state}</span>
        </p>
      )}
      <div className="actions" role="group" aria-label="Stepping">
        <span data-testid="watch-counts" aria-live="polite">
          {session.applied} applied, {waiting} queued
        </span>
        <button type="button" onClick={watch.step} disabled={waiting === 0} data-testid="watch-step">
          Step
        </button>
        <button type="button" onClick={() => setPlaying((p) => !p)} aria-pressed={playing} data-testid="watch-play">
          {playing ? 'Pause' : 'Play'}
        </button>
      </div>
      {session.failure && (
        <div data-testid="watch-failure">
          <StatusError error={new ApiError(session.failure)} testId="watch-status" />
          {kind && (
            <button
              type="button"
              onClick={() => watch.relist(kind, namespace, params).catch(setRelistError)}
              data-testid="watch-relist"
            >
              Relist and watch again
            </button>
          )}
        </div>
      )}
      {relistError !== null && <StatusError error={relistError} />}
      {session.relist && (
        <p role="status" data-testid="watch-relisted">
          Relisted {session.relist.count} objects at resourceVersion {session.relist.resourceVersion}; watching from there.
        </p>
      )}
      {session.history.length > 0 && (
        <ol className="timeline" aria-label="Timeline of applied events" data-testid="watch-timeline">
          {session.history.map((h) => (
            <li key={h.seq}>
              <button
                type="button"
                className={`event-chip ${h.event.type.toLowerCase()} ${current?.seq === h.seq ? 'selected' : ''}`}
                onClick={() => setShown(h.seq)}
                aria-current={current?.seq === h.seq}
                data-testid="timeline-event"
                data-type={h.event.type}
              >
                {h.event.type[0]} {rvOf(h)}
              </button>
            </li>
          ))}
        </ol>
      )}
      {current && <EventDetail applied={current} />}
    </section>
  );
}

function EventDetail({ applied }: { applied: AppliedEvent }) {
  const { event, before } = applied;
  const name = event.type === 'ERROR' ? '' : event.object.metadata?.name;
  const after = event.type === 'DELETED' || event.type === 'ERROR' ? undefined : event.object;
  const lines = event.type === 'BOOKMARK' ? [] : diffLines(objectText(before), objectText(after as never));
  return (
    <div className="event-detail" data-testid="watch-event">
      <p>
        #{applied.seq} <strong data-testid="event-type">{event.type}</strong> {event.type !== 'BOOKMARK' && <code data-testid="event-name">{name}</code>} at resourceVersion{' '}
        <code data-testid="event-rv">{rvOf(applied)}</code>
      </p>
      {lines.length > 0 && (
        <pre className="diff" aria-label="Diff of the object" data-testid="event-diff">
          {lines.map((l, i) => (
            <span key={i} className={l.op === '+' ? 'added' : l.op === '-' ? 'removed' : undefined}>
              {l.op} {l.text}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}

function rvOf({ event }: AppliedEvent): string {
  return event.type === 'ERROR' ? '' : (event.object.metadata?.resourceVersion ?? '');
}
