/**
 * The workbench's own requests, newest first, each with the trace the
 * server recorded for it: who authenticated, the authorization decision and
 * why, impersonation, admission, the field manager's actions and the
 * storage write. Filled from the X-Kubesim-Trace header.
 */
import { useState } from 'react';
import { useWorkbench } from '../../store';
import { TraceEntryView } from './TraceEntryView';

export function TracePanel() {
  const exchanges = useWorkbench((s) => s.exchanges);
  const clear = useWorkbench((s) => s.clearExchanges);
  const [openId, setOpenId] = useState<number | null>(null);
  const open = exchanges.find((e) => e.id === openId) ?? exchanges[0];
  return (
    <section className="panel trace-panel" aria-labelledby="trace-heading" data-testid="trace-panel">
      <h2 id="trace-heading">Trace of the workbench's requests</h2>
      <div className="split">
        <div>
          <button type="button" onClick={clear}>
            Clear
          </button>
          <ol className="trace-list">
            {exchanges.map((e) => (
              <li key={e.id}>
                <button
                  type="button"
                  className={`link ${open?.id === e.id ? 'selected' : ''}`}
                  onClick={() => setOpenId(e.id)}
                  aria-current={open?.id === e.id}
                  data-testid="trace-request"
                  data-status={e.status}
                >
                  {e.status} {e.method} {e.path}
                </button>
              </li>
            ))}
          </ol>
        </div>
        {open && (
          <div data-testid="trace-detail">
            <h3>
              {open.method} {open.path} → {open.status}
            </h3>
            {open.trace.length === 0 ? (
              <p className="muted">The server recorded no decisions for this request.</p>
            ) : (
              <ol className="trace-entries">
                {open.trace.map((t, i) => (
                  <TraceEntryView key={i} entry={t} />
                ))}
              </ol>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
