/**
 * One entry of a request's trace. Field manager actions show, per manager,
 * the fields taken (+) and lost (−), or the conflicting fields of a refused
 * apply; storage writes show the key and the resourceVersion before and
 * after. Other stages show their message and details as recorded.
 */
import type { TraceEntry } from '../../api';
import { fieldManagerAction, storageWrite } from './entries';

export function TraceEntryView({ entry }: { entry: TraceEntry }) {
  const action = entry.stage === 'fieldManager' ? fieldManagerAction(entry) : undefined;
  const write = entry.stage === 'storage' ? storageWrite(entry) : undefined;
  return (
    <li data-testid="trace-entry" data-stage={entry.stage}>
      <strong>{entry.stage}</strong>: {entry.message}
      {action && (
        <ul className="trace-ownership">
          {action.changes.map((c) => (
            <li key={`${c.manager}/${c.operation}/${c.subresource ?? ''}`} data-testid="trace-field-change" data-manager={c.manager} data-operation={c.operation}>
              <span className="trace-manager">
                {c.manager || '(no name)'} ({c.operation}
                {c.subresource ? `, ${c.subresource}` : ''})
              </span>
              {c.gained.map((f) => (
                <code key={`+${f}`} className="trace-gained" data-testid="trace-gained" title="took ownership">
                  + {f}
                </code>
              ))}
              {c.lost.map((f) => (
                <code key={`-${f}`} className="trace-lost" data-testid="trace-lost" title="lost ownership">
                  − {f}
                </code>
              ))}
            </li>
          ))}
          {action.conflicts.map((c) => (
            <li key={c.field} data-testid="trace-conflict" data-field={c.field}>
              <code className="trace-lost">{c.field}</code> {c.message}
            </li>
          ))}
        </ul>
      )}
      {write && (
        <dl className="trace-storage" data-testid="trace-storage" data-key={write.key} data-before={write.before ?? ''} data-after={write.after ?? ''}>
          <dt>key</dt>
          <dd>
            <code>{write.key}</code>
          </dd>
          <dt>resourceVersion</dt>
          <dd>
            {write.before ?? '(new)'} → {write.after ?? '(not written)'}
          </dd>
        </dl>
      )}
      {!action && !write && entry.details && <pre>{JSON.stringify(entry.details, null, 2)}</pre>}
    </li>
  );
}
