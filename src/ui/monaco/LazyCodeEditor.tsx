/**
 * The code editor, fetched on first use: until Monaco arrives a plain
 * textarea edits the same value, so the panel is usable at once.
 */
import { lazy, Suspense } from 'react';
import type { CodeEditorProps } from './types';

const CodeEditor = lazy(() => import('./CodeEditor'));

export function LazyCodeEditor(props: CodeEditorProps) {
  return (
    <Suspense
      fallback={
        <textarea
          className="code-editor-fallback"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          spellCheck={false}
          aria-label={props.ariaLabel}
          data-testid={`${props.testId}-fallback`}
          style={{ height: props.height ?? 320 }}
        />
      }
    >
      <CodeEditor {...props} />
    </Suspense>
  );
}
