/**
 * The Describe view of one object, as `kubectl describe` shows it: its
 * metadata, for a Pod its status and containers, and its Events. The object
 * and its events are watched (`metadata.name` and `involvedObject.uid`
 * field selectors), so the kubelet's and controllers' work shows as it
 * happens. Loaded on demand: it brings the pod printer with it.
 */
import { useWatchedList, type KubeObject, type ResourceKind } from '../../../api';
import { StatusError } from '../../../common';
import { rfc1123z, annotationLines, controlledBy, labelLines } from './metadata';
import { EventsTable } from './EventsTable';
import { PodDescription } from './PodDescription';
import { useNow } from './useNow';
import { timestampSince } from '../../../../core/printers/duration';

interface ObjectDescriptionProps {
  kind: ResourceKind;
  namespace: string | undefined;
  name: string;
  /** Opens a Pod container's log (the Logs view). */
  onShowLogs?: (container: string) => void;
}

export default function ObjectDescription({ kind, namespace, name, onShowLogs }: ObjectDescriptionProps) {
  const ns = kind.namespaced ? namespace : undefined;
  const watched = useWatchedList(kind, ns, '', `metadata.name=${name}`);
  const object = watched.data?.items.find((item) => item.metadata?.name === name);
  const now = useNow();

  return (
    <div className="object-describe" data-testid="object-describe">
      {watched.error && <StatusError error={watched.error} testId="describe-error" />}
      {watched.data && !object && <p className="muted">{`${kind.resource} "${name}" not found`}</p>}
      {object && (
        <>
          <MetadataFacts object={object} now={now} />
          {kind.group === '' && kind.kind === 'Pod' && <PodDescription pod={object} now={now} onShowLogs={onShowLogs} />}
          {object.metadata?.uid && <EventsTable uid={object.metadata.uid} namespace={ns} now={now} />}
        </>
      )}
    </div>
  );
}

function MetadataFacts({ object, now }: { object: KubeObject; now: Date }) {
  const meta = object.metadata ?? {};
  const controller = controlledBy(object);
  return (
    <dl className="describe-facts" data-testid="describe-metadata">
      <dt>Name</dt>
      <dd>{meta.name}</dd>
      {meta.namespace && (
        <>
          <dt>Namespace</dt>
          <dd>{meta.namespace}</dd>
        </>
      )}
      <dt>Labels</dt>
      <dd data-testid="describe-labels">
        <Lines lines={labelLines(meta.labels)} />
      </dd>
      <dt>Annotations</dt>
      <dd data-testid="describe-annotations">
        <Lines lines={annotationLines(meta.annotations)} />
      </dd>
      {controller && (
        <>
          <dt>Controlled By</dt>
          <dd data-testid="describe-controlled-by">{controller}</dd>
        </>
      )}
      <dt>Created</dt>
      <dd data-testid="describe-created">
        {rfc1123z(meta.creationTimestamp)} <span className="muted">({timestampSince(meta.creationTimestamp, now)} ago)</span>
      </dd>
    </dl>
  );
}

function Lines({ lines }: { lines: string[] }) {
  return (
    <span className="describe-lines">
      {lines.map((line, i) => (
        <span key={i}>{line}</span>
      ))}
    </span>
  );
}
