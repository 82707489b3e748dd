/** The label selector sent with the list and its watch, applied on Enter. */
import { useState } from 'react';
import { useWorkbench } from '../../store';

export function LabelSelectorInput() {
  const applied = useWorkbench((s) => s.labelSelector);
  const apply = useWorkbench((s) => s.setLabelSelector);
  const [text, setText] = useState(applied);
  return (
    <form
      className="label-selector"
      onSubmit={(e) => {
        e.preventDefault();
        apply(text.trim());
      }}
    >
      <label>
        Label selector{' '}
        <input value={text} onChange={(e) => setText(e.target.value)} placeholder="app=web,tier!=db" data-testid="label-selector" size={24} />
      </label>
    </form>
  );
}
