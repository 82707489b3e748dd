/** The tab bar (WAI-ARIA tabs: arrow keys move between tabs, Enter or click shows one). */
import { useRef, type KeyboardEvent } from 'react';
import { useWorkbench } from '../store';
import { PANELS, type Panel } from './tabsSlice';

const LABELS: Record<Panel, string> = { resources: 'Resources', editor: 'Editor', ownership: 'Ownership', watch: 'Watch', cel: 'CEL lab', rbac: 'RBAC lab', network: 'Network', scenarios: 'Scenarios', trace: 'Trace', access: 'Access', upgrade: 'Upgrade check', nodes: 'Nodes' };

export function PanelTabs({ panels = PANELS }: { panels?: readonly Panel[] }) {
  const panel = useWorkbench((s) => s.panel);
  const showPanel = useWorkbench((s) => s.showPanel);
  const refs = useRef(new Map<Panel, HTMLButtonElement>());

  const onKeyDown = (event: KeyboardEvent) => {
    const at = panels.indexOf(panel);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = panels[(at + step + panels.length) % panels.length]!;
    showPanel(next);
    refs.current.get(next)?.focus();
  };

  return (
    <div role="tablist" aria-label="Panels" className="tabs" onKeyDown={onKeyDown}>
      {panels.map((p) => (
        <button
          key={p}
          ref={(el) => {
            if (el) refs.current.set(p, el);
          }}
          type="button"
          role="tab"
          id={`tab-${p}`}
          aria-selected={panel === p}
          aria-controls={`panel-${p}`}
          tabIndex={panel === p ? 0 : -1}
          onClick={() => showPanel(p)}
          data-testid={`tab-${p}`}
        >
          {LABELS[p]}
        </button>
      ))}
    </div>
  );
}
