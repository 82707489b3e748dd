/**
 * A Monaco editor bound to a controlled string value. YAML models get the
 * schema given (monaco-yaml); markers from the caller (a CEL error's
 * position) are shown as squiggles; the model's markers are reported back
 * so the panel can list them as text for keyboard and screen-reader users.
 * Loaded lazily through ./LazyCodeEditor.
 */
import { useEffect, useRef } from 'react';
import type { JSONSchema } from 'monaco-yaml';
import { monaco, monacoYaml } from './setup';
import type { CodeEditorProps, EditorMarker } from './types';

/** Schemas by model URI: monaco-yaml takes one list for every model. */
const schemas = new Map<string, { id: string; schema: JSONSchema }>();

function publishSchemas(): void {
  void monacoYaml.update({
    schemas: [...schemas.entries()].map(([uri, { id, schema }]) => ({ uri: `kubesim://schemas/${id}`, fileMatch: [uri], schema })),
  });
}

export default function CodeEditor({ value, onChange, language, modelUri, schema, schemaId, markers, onMarkers, ariaLabel, testId, height = 320 }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const latest = useRef({ onChange, onMarkers });
  latest.current = { onChange, onMarkers };

  useEffect(() => {
    const uri = monaco.Uri.parse(modelUri);
    const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(value, language, uri);
    const instance = monaco.editor.create(host.current!, {
      model,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      tabSize: 2,
      fontSize: 13,
      ariaLabel,
      quickSuggestions: { other: true, comments: false, strings: true },
      // Tab moves focus out of the editor after Ctrl+M, as Monaco documents; keep the default trap off for keyboard users.
      tabFocusMode: false,
    });
    editor.current = instance;
    const changes = model.onDidChangeContent(() => latest.current.onChange(model.getValue()));
    const markerChanges = monaco.editor.onDidChangeMarkers((uris) => {
      if (!uris.some((u) => u.toString() === uri.toString())) return;
      const found = monaco.editor.getModelMarkers({ resource: uri }).filter((m) => m.owner !== 'kubesim');
      latest.current.onMarkers?.(found.map((m) => ({ line: m.startLineNumber, column: m.startColumn, message: m.message, severity: m.severity >= 8 ? 'error' : 'warning' })));
    });
    return () => {
      changes.dispose();
      markerChanges.dispose();
      instance.dispose();
      model.dispose();
      editor.current = null;
    };
    // The model is made once per URI; value changes flow in through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [modelUri, language]);

  useEffect(() => {
    const model = editor.current?.getModel();
    if (model && model.getValue() !== value) {
      // An outside change (a loaded object, a resolution): replace the text as one undoable edit.
      model.pushEditOperations([], [{ range: model.getFullModelRange(), text: value }], () => null);
    }
  }, [value]);

  useEffect(() => {
    if (language !== 'yaml') return;
    if (schema && schemaId) schemas.set(modelUri, { id: schemaId, schema });
    else schemas.delete(modelUri);
    publishSchemas();
  }, [schema, schemaId, modelUri, language]);

  useEffect(() => {
    const model = editor.current?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(model, 'kubesim', (markers ?? []).map((m: EditorMarker) => toMarker(m)));
  }, [markers]);

  return <div ref={host} className="code-editor" style={{ height }} data-testid={testId} data-ready="true" data-schema={schemaId ?? ''} />;
}

function toMarker(m: EditorMarker): monaco.editor.IMarkerData {
  return {
    startLineNumber: m.line,
    startColumn: m.column,
    endLineNumber: m.endLine ?? m.line,
    endColumn: m.endColumn ?? m.column + 1,
    message: m.message,
    severity: m.severity === 'warning' ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Error,
  };
}
