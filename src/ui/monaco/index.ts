/** The lazily loaded Monaco code editor (YAML with schemas, or plain text with markers). */
export { LazyCodeEditor } from './LazyCodeEditor';
export type { CodeEditorProps, EditorMarker } from './types';
