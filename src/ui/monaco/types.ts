import type { JSONSchema } from 'monaco-yaml';

/** A problem at a position (1-based line and column), shown in the editor and listed beside it. */
export interface EditorMarker {
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface CodeEditorProps {
  value: string;
  onChange(value: string): void;
  language: 'yaml' | 'plaintext';
  /** One model per URI; YAML schemas are matched by it. */
  modelUri: string;
  schema?: JSONSchema;
  schemaId?: string;
  markers?: readonly EditorMarker[];
  onMarkers?(markers: EditorMarker[]): void;
  ariaLabel: string;
  testId: string;
  height?: number;
}
